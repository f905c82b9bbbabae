"""s3_server.app: every S3 request reaches moto through the middleware, which logs it (op, bucket, key, status,
range) and delays it by the configured latency; requests are handled in parallel."""
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from pyarrow import fs


def test_each_call_is_one_request_of_its_op(s3, client, bucket):
    client.put_object(Bucket=bucket, Key="counts/a.bin", Body=b"0123456789")
    client.head_object(Bucket=bucket, Key="counts/a.bin")
    assert client.get_object(Bucket=bucket, Key="counts/a.bin", Range="bytes=2-5")["Body"].read() == b"2345"
    client.list_objects_v2(Bucket=bucket, Prefix="counts/")
    client.delete_object(Bucket=bucket, Key="counts/a.bin")

    assert s3.counts() == Counter({"PUT": 1, "HEAD": 1, "GET": 1, "LIST": 1, "DELETE": 1})
    one = dict(bucket=bucket, key="counts/a.bin", range=None, prefix=None, fault=None)
    assert s3.requests() == [
        {"op": "PUT", "method": "PUT", **one, "status": 200},
        {"op": "HEAD", "method": "HEAD", **one, "status": 200},
        {"op": "GET", "method": "GET", **one, "status": 206, "range": "bytes=2-5"},
        {"op": "LIST", "method": "GET", **one, "key": None, "prefix": "counts/", "status": 200},
        {"op": "DELETE", "method": "DELETE", **one, "status": 204},
    ]


def test_pyarrow_listing_is_one_list_and_a_ranged_read_a_get(s3, client, arrow, bucket):
    client.put_object(Bucket=bucket, Key="arrow/part-0.bin", Body=b"x" * 64)
    s3.reset_log()
    infos = arrow.get_file_info(fs.FileSelector(f"{bucket}/arrow", recursive=True))
    assert [i.path for i in infos] == [f"{bucket}/arrow/part-0.bin"]
    assert [(r["op"], r["bucket"], r["key"]) for r in s3.requests()] == [("LIST", bucket, None)]

    s3.reset_log()
    with arrow.open_input_file(f"{bucket}/arrow/part-0.bin") as f:
        assert f.read_at(8, 4) == b"x" * 8
    gets = [r for r in s3.requests() if r["op"] == "GET"]
    assert [(r["key"], r["range"], r["status"]) for r in gets] == [("arrow/part-0.bin", "bytes=4-11", 206)]


def test_listing_and_bucket_calls_are_told_apart(s3, client, bucket):
    client.list_buckets()
    client.list_objects(Bucket=bucket, Prefix="p/", Delimiter="/")
    client.list_multipart_uploads(Bucket=bucket)
    client.get_bucket_location(Bucket=bucket)
    client.get_bucket_versioning(Bucket=bucket)
    assert [(r["op"], r["bucket"]) for r in s3.requests()] == [
        ("LIST", None), ("LIST", bucket), ("LIST", bucket), ("GET", bucket), ("GET", bucket)]


def test_multipart_copy_and_batch_delete_ops(s3, client, bucket):
    key = "multi/a.bin"
    upload = client.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    part = client.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=1, Body=b"abc")
    client.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload,
                                     MultipartUpload={"Parts": [{"ETag": part["ETag"], "PartNumber": 1}]})
    client.copy_object(Bucket=bucket, Key="multi/b.bin", CopySource={"Bucket": bucket, "Key": key})
    client.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": key}, {"Key": "multi/b.bin"}]})
    assert [(r["op"], r["key"], r["status"]) for r in s3.requests()] == [
        ("POST", key, 200), ("PUT", key, 200), ("POST", key, 200), ("PUT", "multi/b.bin", 200),
        ("POST", None, 200)]


def test_a_missing_object_is_logged_with_its_status(s3, client, bucket):
    try:
        client.get_object(Bucket=bucket, Key="nowhere")
    except client.exceptions.NoSuchKey:
        pass
    assert [(r["op"], r["status"]) for r in s3.requests()] == [("GET", 404)]


def test_latency_delays_every_request(s3, client, bucket):
    s3.set_latency(100)
    start = time.monotonic()
    client.head_bucket(Bucket=bucket)
    assert time.monotonic() - start >= 0.1  # a lower bound only: the delay is a fact, how much more is not


def test_parallel_requests_are_all_handled(s3, client, bucket):
    s3.set_latency(100)
    keys = [f"parallel/{i}.bin" for i in range(4)]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda k: client.put_object(Bucket=bucket, Key=k, Body=k.encode()), keys))
    assert sorted(r["key"] for r in s3.requests()) == keys
    assert s3.counts() == Counter({"PUT": 4})


def test_control_requests_are_not_logged(s3, client, bucket):
    s3.set_latency(0)
    s3.add_fault("delay", op="GET", delay_ms=1)
    s3.clear_faults()
    s3.requests()
    assert s3.requests() == []
