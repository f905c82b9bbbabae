"""s3_server.requests: each S3 request is told apart by its method, path and query alone."""
import pytest

from s3_server.requests import BUCKET_SUBRESOURCES, bucket_and_key, classify


def environ(method: str, path: str, query: str = "", **headers: str) -> dict:
    return {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query, **headers}


@pytest.mark.parametrize("path, query", [
    ("/", ""),                                      # ListBuckets
    ("/bkt", ""),                                   # ListObjects v1
    ("/bkt/", "list-type=2&prefix=a%2F&delimiter=%2F"),
    ("/bkt", "list-type=2&continuation-token=x"),
    ("/bkt", "uploads"),                            # ListMultipartUploads
    ("/bkt", "versions&prefix=a"),                  # ListObjectVersions
])
def test_a_get_listing_keys_is_a_list(path, query):
    assert classify(environ("GET", path, query)).op == "LIST"


@pytest.mark.parametrize("name", sorted(BUCKET_SUBRESOURCES))
def test_a_get_of_a_bucket_subresource_is_a_get(name):
    request = classify(environ("GET", "/bkt", name))
    assert (request.op, request.bucket, request.key) == ("GET", "bkt", None)


@pytest.mark.parametrize("method, path, query, op", [
    ("GET", "/bkt/a/b.parquet", "", "GET"),
    ("GET", "/bkt/a", "tagging", "GET"),            # an object's sub-resource is still an object read
    ("HEAD", "/bkt/a", "", "HEAD"),
    ("HEAD", "/bkt", "", "HEAD"),                   # HeadBucket
    ("PUT", "/bkt", "", "PUT"),                     # CreateBucket
    ("PUT", "/bkt/a", "partNumber=1&uploadId=u", "PUT"),
    ("POST", "/bkt/a", "uploads", "POST"),
    ("POST", "/bkt", "delete", "POST"),             # DeleteObjects
    ("DELETE", "/bkt/a", "", "DELETE"),
])
def test_ops(method, path, query, op):
    assert classify(environ(method, path, query)).op == op


def test_bucket_key_and_range_are_read_off_the_request():
    request = classify(environ("GET", "/bkt/dir/file.bin", HTTP_RANGE="bytes=0-9"))
    assert request.as_log() == {"op": "GET", "method": "GET", "bucket": "bkt", "key": "dir/file.bin",
                                "range": "bytes=0-9", "prefix": None}
    assert request.target == "bkt/dir/file.bin"


def test_a_list_names_the_folder_it_lists():
    assert classify(environ("GET", "/bkt", "list-type=2&prefix=t%2F.hoodie%2F&delimiter=%2F")).prefix == "t/.hoodie/"
    assert classify(environ("GET", "/bkt", "list-type=2")).prefix == ""


def test_a_key_outside_ascii_is_decoded_from_the_wsgi_path():
    wsgi_path = "/bkt/h\u00e9/\u00fc.txt".encode().decode("latin-1")  # PEP 3333's latin-1 of the UTF-8 bytes
    assert classify(environ("GET", wsgi_path)).key == "h\u00e9/\u00fc.txt"


def test_paths_split_into_bucket_and_key():
    assert bucket_and_key("/") == (None, None)
    assert bucket_and_key("/bkt/") == ("bkt", None)
    assert bucket_and_key("/bkt/a/b/") == ("bkt", "a/b/")
