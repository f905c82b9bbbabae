// sbt build of the hudi-meta connector, for sbt users. The same sources are compiled offline
// by `python -m pyhudi.build` (javac against the installed pyspark's jars).
// Test helpers (inspectors, conformance runner) live in connector/src/test/java, sbt's default test
// sources, and compile against the "provided" Spark/Hadoop jars of the test classpath:
// `sbt connector/test:package` (sbt 1.x slash syntax: `connector/Test/package`) builds the test jar,
// which `python -m pyhudi.build --tests` builds offline.
ThisBuild / organization := "io.hudimeta"
ThisBuild / version := "0.1.0"
ThisBuild / scalaVersion := "2.13.16"

val sparkVersion = "4.0.1"

lazy val connector = (project in file("connector"))
  .settings(
    name := "hudi-meta-connector",
    crossPaths := false,
    autoScalaLibrary := false,
    javacOptions ++= Seq("--release", "17", "-encoding", "UTF-8"),
    Compile / packageBin / artifactPath := baseDirectory.value / ".." / "pyhudi" / "jars" / "hudi-meta-connector.jar",
    Test / packageBin / artifactPath := baseDirectory.value / ".." / "build" / "test-jars" / "hudi-meta-connector-tests.jar",
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % "provided",
      "org.apache.hadoop" % "hadoop-client-api" % "3.4.1" % "provided"
    )
  )
