"""pyhudi.spark.s3: S3A's jars for the session, at the Hadoop version of the installed pyspark."""
from pyhudi.spark import s3


def test_the_installed_pysparks_hadoop_gets_hadoop_aws_and_only_the_sdk_modules_s3a_uses():
    hadoop = s3.hadoop_version()
    assert hadoop in s3.SDK_OF_HADOOP  # the pyspark this project pins: its SDK is known, not the 650 MB bundle
    add, exclude = s3.packages()
    sdk = s3.SDK_OF_HADOOP[hadoop]
    assert add == [f"org.apache.hadoop:hadoop-aws:{hadoop}", f"software.amazon.awssdk:s3:{sdk}",
                   f"software.amazon.awssdk:s3-transfer-manager:{sdk}", f"software.amazon.awssdk:sts:{sdk}"]
    assert "software.amazon.awssdk:bundle" in exclude and "io.netty:*" in exclude


def test_a_hadoop_release_not_known_gets_hadoop_aws_as_it_declares_itself():
    add, exclude = s3.packages("9.9.9")
    assert add == ["org.apache.hadoop:hadoop-aws:9.9.9"] and "software.amazon.awssdk:bundle" not in exclude


def test_the_users_own_packages_stay_and_s3_maps_to_s3a_unless_mapped():
    conf = {"spark.jars.packages": "org.example:lib:1", "spark.hadoop.fs.s3.impl": "com.example.EmrLike"}
    s3.add_to(conf)
    assert conf["spark.jars.packages"].startswith("org.example:lib:1,org.apache.hadoop:hadoop-aws:")
    assert conf["spark.hadoop.fs.s3.impl"] == "com.example.EmrLike"
    fresh: dict[str, str] = {}
    s3.add_to(fresh)
    assert fresh["spark.hadoop.fs.s3.impl"] == s3.S3A


def test_s3a_settings_ask_for_s3():
    assert s3.wanted({"spark.hadoop.fs.s3a.endpoint": "http://x"})
    assert not s3.wanted({"spark.master": "local[2]"})
