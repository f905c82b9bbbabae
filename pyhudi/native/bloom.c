/* Hudi's record-key bloom filter hashing for many keys at once (pyhudi.basefile.bloom_vector loads it
 * with ctypes; numpy does the same work when it is not built).
 *
 * A key's bit positions: h0 = 0, h(i+1) = murmur2(key, seed = h(i)) as Hadoop's MurmurHash computes it
 * (little-endian body words; the 1-3 tail bytes taken from the end as sign-extended Java bytes), and
 * position i = |(int32) h(i+1)| mod vectorSize. Bits are LSB-first within a byte (Hadoop's BitSet
 * as Hudi serializes it). The body words' mixing does not depend on the seed: done once per key. */
#include <stdint.h>
#include <stdlib.h>

#define M 0x5bd1e995u
#define MAX_WORDS 256 /* keys longer than 1 KiB mix their words per hash instead */

static uint32_t tail_of(const uint8_t *key, int64_t len, int64_t left) {
  uint32_t t = 0;
  if (left >= 3) t ^= (uint32_t)(int32_t)(int8_t)key[len - 3] << 16;
  if (left >= 2) t ^= (uint32_t)(int32_t)(int8_t)key[len - 2] << 8;
  t ^= (uint32_t)(int32_t)(int8_t)key[len - 1];
  return t;
}

static uint32_t mixed_word(const uint8_t *p) {
  uint32_t k = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  k *= M;
  k ^= k >> 24;
  return k * M;
}

/* The nb_hash positions of one key into out. */
static void positions(const uint8_t *key, int64_t len, int32_t nb_hash, int32_t vector_size, int64_t *out) {
  int64_t words = len >> 2, left = len & 3;
  uint32_t ks[MAX_WORDS];
  int cached = words <= MAX_WORDS;
  if (cached) {
    for (int64_t j = 0; j < words; j++) ks[j] = mixed_word(key + 4 * j);
  }
  uint32_t tail = left ? tail_of(key, len, left) : 0, h = 0;
  for (int32_t i = 0; i < nb_hash; i++) {
    h ^= (uint32_t)len;
    for (int64_t j = 0; j < words; j++) {
      h *= M;
      h ^= cached ? ks[j] : mixed_word(key + 4 * j);
    }
    if (left) {
      h ^= tail;
      h *= M;
    }
    h ^= h >> 13;
    h *= M;
    h ^= h >> 15;
    out[i] = llabs((int64_t)(int32_t)h) % vector_size;
  }
}

/* Positions of n keys (key k: data[starts[k]], lengths[k] bytes) into out, n x nb_hash. */
void hudi_bloom_positions(const uint8_t *data, const int64_t *starts, const int64_t *lengths, int64_t n,
                          int32_t nb_hash, int32_t vector_size, int64_t *out) {
  for (int64_t k = 0; k < n; k++) positions(data + starts[k], lengths[k], nb_hash, vector_size, out + k * nb_hash);
}

/* Sets the bits of n keys in one bit vector. nb_hash is at most 64 here (the caller checks). */
void hudi_bloom_set(const uint8_t *data, const int64_t *starts, const int64_t *lengths, int64_t n,
                    int32_t nb_hash, int32_t vector_size, uint8_t *bits) {
  int64_t pos[64];
  for (int64_t k = 0; k < n; k++) {
    positions(data + starts[k], lengths[k], nb_hash, vector_size, pos);
    for (int32_t i = 0; i < nb_hash; i++) bits[pos[i] >> 3] |= (uint8_t)(1u << (pos[i] & 7));
  }
}

/* hit[k] |= 1 when every bit of key k is set in the bit vector. */
void hudi_bloom_test(const uint8_t *data, const int64_t *starts, const int64_t *lengths, int64_t n,
                     int32_t nb_hash, int32_t vector_size, const uint8_t *bits, uint8_t *hit) {
  int64_t pos[64];
  for (int64_t k = 0; k < n; k++) {
    positions(data + starts[k], lengths[k], nb_hash, vector_size, pos);
    int all = 1;
    for (int32_t i = 0; i < nb_hash && all; i++) all = (bits[pos[i] >> 3] >> (pos[i] & 7)) & 1;
    hit[k] |= (uint8_t)all;
  }
}
