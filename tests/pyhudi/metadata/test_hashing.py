"""XXHash64 against the reference vectors."""
from pyhudi.metadata.hashing import xxhash64


def test_xxhash64_reference_vectors():
    assert xxhash64(b"", 0) == 0xEF46DB3751D8E999
    assert xxhash64(b"a", 0) == 0xD24EC4F1A98C6E5B
    assert xxhash64(b"abc", 0) == 0x44BC2CF5AD770999
    assert xxhash64(b"Nobody inspects the spammish repetition", 0) == 0xFBCEA83C8A378BF1  # >= 32 bytes
