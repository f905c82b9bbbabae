// sbt build of the hudi-meta connector, for sbt users. The same sources are compiled offline by
// `python -m pyhudi.build --tests` (javac against the installed pyspark's jars); tests/build/test_sbt.py
// checks that both builds, made from one snapshot of the sources, hold the same classes.
//
// `python -m sbt_build connector/package connector/Test/package` runs it with nothing installed by hand:
// it fetches the sbt launcher (project/build.properties' version) with Maven and keeps every sbt cache
// under .cache/sbt/ (README, "Building with sbt"). An sbt of your own works too.
//
// What the sources are compiled against, "provided" either way (never packed, never a dependency):
// - the installed pyspark's jars, the very classpath pyhudi.build gives javac: the folder PYHUDI_SPARK_JARS
//   names (sbt_build sets it, pyhudi.build reads it), else the jars of the pyspark that `python3` (or
//   `python`) on PATH imports. Spark's, Scala's and Hadoop's versions are read from the jars' names.
// - with no pyspark: spark-sql and hadoop-client-api from Maven, Spark at -Dspark.version (default below).
//   Maven serves no spark-sql_2.13 4.3.0 (pyspark 4.3.0's); 4.2.0 has the same Scala (2.13.18), Hadoop
//   (3.5.0), Avro, Parquet and Jackson, but the sources use Spark 4.3 APIs and so need the first way.
//
// Outputs: build/sbt/hudi-meta-connector.jar and build/sbt/hudi-meta-connector-tests.jar (the test
// helpers of connector/src/test/java: inspectors, the conformance runner); sbt's own work goes to target/
// folders. Neither touches pyhudi/jars/, which pyhudi.build owns; both are git-ignored.
import java.io.File
import java.lang.ProcessBuilder.Redirect
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.TimeUnit
import scala.util.Try

/** What `python -c code` prints, if it prints within a minute and exits 0. */
def pythonSays(python: String, code: String): Option[String] = Try {
  val p = new ProcessBuilder(python, "-c", code).redirectError(Redirect.DISCARD).start()
  p.getOutputStream.close()
  val out = new String(p.getInputStream.readAllBytes(), UTF_8)
  if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue == 0) Some(out.trim) else { p.destroyForcibly(); None }
}.toOption.flatten

val sparkJars: Option[File] = sys.env.get("PYHUDI_SPARK_JARS").filter(_.nonEmpty).map(new File(_)).orElse {
  val code = "import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), 'jars'))"
  Seq("python3", "python").view.flatMap(pythonSays(_, code)).map(new File(_)).find(_.isDirectory)
}

/** The version in the name of the jar of `sparkJars` called `<prefix><version>.jar`. */
def jarVersion(prefix: String): Option[String] = sparkJars.flatMap { dir =>
  val pattern = (java.util.regex.Pattern.quote(prefix) + """(\d[^/]*)\.jar""").r
  Option(dir.listFiles).toSeq.flatten.map(_.getName).collectFirst { case pattern(v) => v }
}

val sparkVersion = jarVersion("spark-sql_2.13-").getOrElse(sys.props.getOrElse("spark.version", "4.2.0"))
val hadoopVersion = jarVersion("hadoop-client-api-").getOrElse("3.5.0")

ThisBuild / organization := "io.hudimeta"
ThisBuild / version := "0.1.0"
// the compiler instance sbt keeps for the project (it has no Scala source); the Scala library on the
// classpath is the one Spark brings
ThisBuild / scalaVersion := jarVersion("scala-library-").getOrElse("2.13.18")
Global / bspEnabled := false // no .bsp/ folder in the repository

lazy val connector = (project in file("connector"))
  .settings(
    name := "hudi-meta-connector",
    crossPaths := false,
    autoScalaLibrary := false,
    javacOptions ++= Seq("--release", "17", "-nowarn", "-encoding", "UTF-8"), // pyhudi.build's
    Compile / packageBin / artifactPath := (ThisBuild / baseDirectory).value / "build" / "sbt" / "hudi-meta-connector.jar",
    Test / packageBin / artifactPath := (ThisBuild / baseDirectory).value / "build" / "sbt" / "hudi-meta-connector-tests.jar",
    Test / packageBin / mainClass := None, // the test jar has several mains, and names none
    libraryDependencies ++= (if (sparkJars.isDefined) Nil
                             else Seq("org.apache.spark" %% "spark-sql" % sparkVersion % "provided",
                                      "org.apache.hadoop" % "hadoop-client-api" % hadoopVersion % "provided")),
    // unmanaged jars: on the compile and test classpaths, never packed nor published
    Compile / unmanagedJars ++= sparkJars.toSeq.flatMap(dir => (dir * "*.jar").classpath)
  )

Global / onLoad := (Global / onLoad).value.andThen { state =>
  state.log.info(s"hudi-meta connector: Spark $sparkVersion, Hadoop $hadoopVersion, " +
    sparkJars.fold("from Maven")(dir => s"the jars of $dir"))
  state
}
