/* Hudi's record-key bloom filter hashing for many keys at once (pyhudi.basefile.bloom_vector loads it
 * with ctypes; numpy does the same work when it is not built).
 *
 * A key's bit positions: h0 = 0, h(i+1) = murmur2(key, seed = h(i)) as Hadoop's MurmurHash computes it
 * (little-endian body words; the 1-3 tail bytes taken from the end as sign-extended Java bytes), and
 * position i = |(int32) h(i+1)| mod vectorSize. Bits are LSB-first within a byte (Hadoop's BitSet
 * as Hudi serializes it). The body words' mixing does not depend on the seed: done once per key. */
#include <stdint.h>

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

/* One key's hashing state: its body words mixed once (they do not depend on the seed). */
typedef struct {
  const uint8_t *key;
  int64_t len, words, left;
  uint32_t tail, h;
  uint32_t ks[MAX_WORDS];
} state;

static void start(state *s, const uint8_t *key, int64_t len) {
  s->key = key;
  s->len = len;
  s->words = len >> 2;
  s->left = len & 3;
  s->tail = s->left ? tail_of(key, len, s->left) : 0;
  s->h = 0;
  if (s->words <= MAX_WORDS) {
    for (int64_t j = 0; j < s->words; j++) s->ks[j] = mixed_word(key + 4 * j);
  }
}

/* The next hash of the chain, seeded by the previous one: h(i+1) = murmur2(key, h(i)). */
static uint32_t next(state *s) {
  uint32_t h = s->h ^ (uint32_t)s->len;
  int cached = s->words <= MAX_WORDS;
  for (int64_t j = 0; j < s->words; j++) {
    h *= M;
    h ^= cached ? s->ks[j] : mixed_word(s->key + 4 * j);
  }
  if (s->left) {
    h ^= s->tail;
    h *= M;
  }
  h ^= h >> 13;
  h *= M;
  h ^= h >> 15;
  s->h = h;
  return h;
}

/* Java's Math.abs((int) h % size): the magnitude of h (2^31 for INT_MIN) mod size. The remainder is taken by
 * Lemire's multiply-based method (exact for every 32-bit value and divisor), the divisor's constant made once:
 * a division per hash was a third of the hashing time. */
static uint64_t mod_constant(uint32_t size) { return UINT64_C(0xFFFFFFFFFFFFFFFF) / size + 1; }

static int64_t position(uint32_t h, uint32_t size, uint64_t c) {
  uint32_t magnitude = (int32_t)h < 0 ? 0u - h : h;
  return (int64_t)(((__uint128_t)(c * magnitude) * size) >> 64);
}

/* Positions of keys first..first+count-1 (count <= LANES) into out, count x nb_hash. A key's hashes form one
 * chain of dependent multiplies; the LANES keys' chains are advanced in turn so the CPU overlaps them. */
#define LANES 8
static void block(const uint8_t *data, const int64_t *starts, const int64_t *lengths, int64_t first, int count,
                  int32_t nb_hash, int32_t vector_size, int64_t *out) {
  state s[LANES];
  uint32_t size = (uint32_t)vector_size;
  uint64_t c = mod_constant(size);
  for (int k = 0; k < count; k++) start(&s[k], data + starts[first + k], lengths[first + k]);
  for (int32_t i = 0; i < nb_hash; i++) {
    for (int k = 0; k < count; k++) out[k * nb_hash + i] = position(next(&s[k]), size, c);
  }
}

static int lanes(int64_t first, int64_t n) { return n - first < LANES ? (int)(n - first) : LANES; }

/* Positions of n keys (key k: data[starts[k]], lengths[k] bytes) into out, n x nb_hash. */
void hudi_bloom_positions(const uint8_t *data, const int64_t *starts, const int64_t *lengths, int64_t n,
                          int32_t nb_hash, int32_t vector_size, int64_t *out) {
  for (int64_t k = 0; k < n; k += LANES)
    block(data, starts, lengths, k, lanes(k, n), nb_hash, vector_size, out + k * nb_hash);
}

/* Sets the bits of n keys in one bit vector. nb_hash is at most 64 here (the caller checks). */
void hudi_bloom_set(const uint8_t *data, const int64_t *starts, const int64_t *lengths, int64_t n,
                    int32_t nb_hash, int32_t vector_size, uint8_t *bits) {
  int64_t pos[LANES * 64];
  for (int64_t k = 0; k < n; k += LANES) {
    int count = lanes(k, n);
    block(data, starts, lengths, k, count, nb_hash, vector_size, pos);
    for (int32_t i = 0; i < count * nb_hash; i++) bits[pos[i] >> 3] |= (uint8_t)(1u << (pos[i] & 7));
  }
}

/* hit[k] |= 1 when every bit of key k is set in the bit vector. */
void hudi_bloom_test(const uint8_t *data, const int64_t *starts, const int64_t *lengths, int64_t n,
                     int32_t nb_hash, int32_t vector_size, const uint8_t *bits, uint8_t *hit) {
  int64_t pos[LANES * 64];
  for (int64_t k = 0; k < n; k += LANES) {
    int count = lanes(k, n);
    block(data, starts, lengths, k, count, nb_hash, vector_size, pos);
    for (int j = 0; j < count; j++) {
      const int64_t *p = pos + j * nb_hash;
      int all = 1;
      for (int32_t i = 0; i < nb_hash && all; i++) all = (bits[p[i] >> 3] >> (p[i] & 7)) & 1;
      hit[k + j] |= (uint8_t)all;
    }
  }
}
