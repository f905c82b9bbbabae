"""pyhudi.object_store: S3A's settings, read as Hadoop reads them, from wherever this process has them."""
import json

import pytest

from pyhudi import object_store
from pyhudi.object_store import ENV, S3Settings


def test_settings_are_s3a_keys_with_per_bucket_overrides():
    conf = {"fs.s3a.endpoint": "http://127.0.0.1:9000", "fs.s3a.path.style.access": "true",
            "fs.s3a.access.key": "AK", "fs.s3a.secret.key": "SK", "fs.s3a.endpoint.region": "eu-west-1",
            "fs.s3a.bucket.other.endpoint": "store.example:8443", "fs.s3a.bucket.other.access.key": "OTHER"}
    mine = S3Settings.of(conf, "tables")
    assert (mine.scheme, mine.endpoint, mine.region, mine.access_key, mine.secret_key, mine.path_style) == \
        ("http", "127.0.0.1:9000", "eu-west-1", "AK", "SK", True)
    assert mine.endpoint_url == "http://127.0.0.1:9000"
    other = S3Settings.of(conf, "other")
    assert (other.scheme, other.endpoint, other.access_key, other.secret_key) == \
        ("https", "store.example:8443", "OTHER", "SK")


def test_an_endpoint_without_its_scheme_takes_ssl_setting_and_aws_endpoints_are_left_to_the_sdk():
    plain = S3Settings.of({"fs.s3a.endpoint": "minio:9000", "fs.s3a.connection.ssl.enabled": "false"}, "b")
    assert (plain.scheme, plain.endpoint) == ("http", "minio:9000")
    aws = S3Settings.of({"fs.s3a.endpoint": "s3.eu-west-1.amazonaws.com"}, "b")
    assert (aws.endpoint, aws.path_style, aws.attempts) == (None, False, object_store.DEFAULT_ATTEMPTS)


def test_anonymous_access_and_retries_follow_s3a():
    s = S3Settings.of({"fs.s3a.aws.credentials.provider": object_store.ANONYMOUS,
                       "fs.s3a.attempts.maximum": "2"}, "public")
    assert (s.anonymous, s.attempts) == (True, 2)


def test_pyarrows_uri_form_still_names_its_endpoint():
    s, path = object_store.settings_for("s3://tables/t?endpoint_override=127.0.0.1:9&scheme=http&region=r")
    assert (path, s.endpoint_url, s.region, s.path_style) == ("tables/t", "http://127.0.0.1:9", "r", True)


def test_a_uri_without_a_bucket_is_refused_with_the_form_to_use():
    with pytest.raises(ValueError, match="names no bucket: write s3a://<bucket>/<path>"):
        object_store.split("s3a:///t")


def test_a_worker_takes_the_drivers_settings_from_its_environment(monkeypatch):
    monkeypatch.setattr(object_store, "_driver_context", lambda: None)  # a worker: no SparkContext of its own
    monkeypatch.setenv(ENV, json.dumps({"fs.s3a.endpoint": "http://driver-said:1"}))
    s, path = object_store.settings_for("s3a://b/t/")
    assert (s.endpoint_url, path) == ("http://driver-said:1", "b/t")


def test_the_cli_reads_core_site_xml_of_hadoop_conf_dir(tmp_path, monkeypatch):
    (tmp_path / "core-site.xml").write_text(
        "<configuration><property><name>fs.s3a.endpoint</name><value>http://site:2</value></property>"
        "<property><name>fs.s3a.bucket.b.path.style.access</name><value>true</value></property>"
        "<property><name>fs.defaultFS</name><value>hdfs://nn</value></property></configuration>")
    monkeypatch.setattr(object_store, "_driver_context", lambda: None)  # the CLI: no Spark session
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("HADOOP_CONF_DIR", str(tmp_path))
    assert object_store.hadoop_conf() == {"fs.s3a.endpoint": "http://site:2",
                                          "fs.s3a.bucket.b.path.style.access": "true"}
    assert object_store.settings_for("s3a://b/t")[0].path_style


def test_the_driver_hands_its_hadoop_settings_to_the_python_workers(spark):
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    conf.set("fs.s3a.bucket.handoff.endpoint", "http://from-spark:3")
    conf.set("fs.s3a.bucket.handoff.magic.committer", "ignored")  # not a key pyhudi reads: not handed on
    try:
        s, _ = object_store.settings_for("s3a://handoff/t")
        assert s.endpoint_url == "http://from-spark:3"
        handed = json.loads(spark.sparkContext.environment[ENV])
        assert handed["fs.s3a.bucket.handoff.endpoint"] == "http://from-spark:3"
        assert "fs.s3a.bucket.handoff.magic.committer" not in handed
        seen = spark.sparkContext.parallelize([0], 1).map(lambda _: __import__("os").environ.get(ENV)).collect()[0]
        assert json.loads(seen)["fs.s3a.bucket.handoff.endpoint"] == "http://from-spark:3"
    finally:
        conf.unset("fs.s3a.bucket.handoff.endpoint")
        conf.unset("fs.s3a.bucket.handoff.magic.committer")
        object_store.hadoop_conf()
