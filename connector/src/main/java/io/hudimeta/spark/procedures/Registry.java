package io.hudimeta.spark.procedures;

import static io.hudimeta.spark.procedures.Param.optional;
import static io.hudimeta.spark.procedures.Param.required;
import static org.apache.spark.sql.types.DataTypes.BooleanType;
import static org.apache.spark.sql.types.DataTypes.IntegerType;
import static org.apache.spark.sql.types.DataTypes.LongType;
import static org.apache.spark.sql.types.DataTypes.StringType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * The procedures {@code CALL} knows, with Apache Hudi's names, parameters (in Hudi's order) and result
 * columns (hudi-spark's {@code *Procedure.scala}). Where Hudi's procedure takes only a table name, a
 * {@code path} parameter is added last, so Hudi's positional calls keep working.
 */
final class Registry {

  static final Map<String, ProcedureSpec> SPECS = new TreeMap<>();

  private static final Param TABLE = optional("table", StringType);
  private static final Param PATH = optional("path", StringType);
  /** The columns show_fsview_all and show_fsview_latest begin with. */
  private static final String FS_VIEW_COLUMNS =
    "partition:string,file_id:string,base_instant:string,data_file:string,data_file_size:long," +
    "num_delta_files:long,total_delta_file_size:long,";

  private Registry() {}

  static {
    add(
      "show_commits",
      "completed commits, newest first",
      List.of(TABLE, optional("limit", IntegerType, "10"), PATH),
      columns(
        "commit_time:string,state_transition_time:string,action:string,total_bytes_written:long,",
        "total_files_added:long,total_files_updated:long,total_partitions_written:long,",
        "total_records_written:long,total_update_records_written:long,total_errors:long"
      )
    );
    add(
      "show_commit_files",
      "the files a completed commit wrote",
      List.of(TABLE, optional("limit", IntegerType, "10"), required("instant_time", StringType), PATH),
      columns(
        "action:string,partition_path:string,file_id:string,previous_commit:string,total_records_updated:long,",
        "total_records_written:long,total_bytes_written:long,total_errors:long,file_size:long"
      )
    );
    add(
      "rollback_to_instant",
      "roll back the latest completed commit",
      List.of(TABLE, required("instant_time", StringType), PATH),
      columns("rollback_result:boolean")
    );
    add(
      new ProcedureSpec(
        "show_fsview_latest",
        "the latest file slice of each file group",
        fsViewParams(optional("partition_path", StringType), optional("merge", BooleanType, "true")),
        columns(
          FS_VIEW_COLUMNS,
          "delta_size_compaction_scheduled:long,",
          "delta_size_compaction_unscheduled:long,delta_to_base_radio_compaction_scheduled:double,",
          "delta_to_base_radio_compaction_unscheduled:double,delta_files_compaction_scheduled:string,",
          "delta_files_compaction_unscheduled:string"
        ),
        FsView::latest
      )
    );
    add(
      new ProcedureSpec(
        "show_fsview_all",
        "every file slice of every file group",
        fsViewParams(),
        columns(FS_VIEW_COLUMNS, "delta_files:string"),
        FsView::all
      )
    );
    add(
      "run_compaction",
      "schedule and/or run compactions of a merge-on-read table",
      List.of(
        required("op", StringType),
        TABLE,
        PATH,
        optional("timestamp", LongType),
        optional("options", StringType),
        optional("instants", StringType),
        optional("limit", IntegerType)
      ),
      columns("timestamp:string,operation_size:int,state:string")
    );
    add(
      "show_compaction",
      "compactions of a merge-on-read table, newest first",
      List.of(TABLE, PATH, optional("limit", IntegerType, "20")),
      columns("timestamp:string,operation_size:int,state:string")
    );
    add(
      "run_clean",
      "delete file versions no reader needs any more",
      List.of(
        TABLE,
        optional("schedule_in_line", BooleanType, "true"),
        optional("clean_policy", StringType),
        optional("retain_commits", IntegerType),
        optional("hours_retained", IntegerType),
        optional("file_versions_retained", IntegerType),
        optional("trigger_strategy", StringType),
        optional("trigger_max_commits", IntegerType),
        optional("options", StringType),
        PATH
      ),
      columns(
        "start_clean_time:string,time_taken_in_millis:long,total_files_deleted:int,",
        "earliest_commit_to_retain:string,bootstrap_part_metadata:string,version:int"
      )
    );
    add(
      "run_clustering",
      "schedule and/or run clusterings",
      List.of(
        TABLE,
        PATH,
        optional("predicate", StringType),
        optional("order", StringType),
        optional("show_involved_partition", BooleanType, "false"),
        optional("op", StringType),
        optional("order_strategy", StringType),
        optional("options", StringType),
        optional("instants", StringType),
        optional("selected_partitions", StringType)
      ),
      columns("timestamp:string,input_group_size:int,state:string,involved_partitions:string")
    );
    add(
      "create_savepoint",
      "savepoint a completed commit (default: the latest)",
      List.of(
        TABLE,
        optional("commit_time", StringType, "''"),
        optional("user", StringType, "''"),
        optional("comments", StringType, "''"),
        PATH
      ),
      columns("create_savepoint_result:boolean")
    );
    add(
      "rollback_to_savepoint",
      "restore the table to a savepoint (default: the latest)",
      List.of(TABLE, optional("instant_time", StringType, "''"), PATH),
      columns("rollback_savepoint_result:boolean")
    );
    add("show_savepoints", "the savepoints, newest first", List.of(TABLE, PATH), columns("savepoint_time:string"));
    add(
      "delete_savepoint",
      "delete a savepoint",
      List.of(TABLE, required("instant_time", StringType), PATH),
      columns("delete_savepoint_result:boolean")
    );
    add(
      "show_table_properties",
      "hoodie.properties, key by key",
      List.of(TABLE, PATH, optional("limit", IntegerType, "10")),
      columns("key:string,value:string")
    );
    add(
      "archive_commits",
      "move old instants of the active timeline into its history",
      List.of(
        TABLE,
        PATH,
        optional("min_commits", IntegerType, "20"),
        optional("max_commits", IntegerType, "30"),
        optional("retain_commits", IntegerType, "10"),
        optional("enable_metadata", BooleanType, "true")
      ),
      columns("result:int")
    );
    add(
      "create_metadata_table",
      "build the metadata table from a listing of the table",
      List.of(TABLE, PATH),
      columns("result:string")
    );
    add(
      "delete_metadata_table",
      "delete the metadata table (readers list storage until it is built again)",
      List.of(TABLE, PATH),
      columns("result:string")
    );
    add(
      "show_metadata_table_stats",
      "sizes and file counts of the metadata table's partitions",
      List.of(TABLE, PATH),
      columns("stat_key:string,stat_value:string")
    );
    add(
      "show_metadata_table_partitions",
      "the data partitions the metadata table lists",
      List.of(TABLE, PATH),
      columns("partition:string")
    );
    add(
      "show_metadata_table_files",
      "the files the metadata table lists in a partition",
      List.of(TABLE, optional("partition", StringType, "''"), optional("limit", IntegerType, "100"), PATH),
      columns("file_path:string")
    );
    add(
      new ProcedureSpec(
        "show_metadata_table_column_stats",
        "the metadata table's column statistics of the named columns, per file",
        List.of(
          TABLE,
          PATH,
          optional("partition", StringType),
          optional("targetColumns", StringType),
          optional("filter", StringType, "''")
        ),
        columns("file_name:string,column_name:string,min_value:string,max_value:string,null_number:long"),
        MetadataColumnStats::rows
      )
    );
    add(
      "validate_metadata_table_files",
      "files the metadata table lists that storage does not hold, and the other way round",
      List.of(TABLE, optional("verbose", BooleanType, "false"), PATH),
      columns(
        "partition:string,file_name:string,is_present_in_fs:boolean,is_present_in_metadata:boolean,",
        "fs_size:long,metadata_size:long"
      )
    );
    add(
      "validate_metadata_table",
      "pyhudi's: every metadata partition checked against the data, one row per difference",
      List.of(TABLE, optional("partition", StringType, "''"), PATH),
      columns("partition:string,location:string,difference:string,metadata_value:string,data_value:string")
    );
    add(
      "repair_metadata_table",
      "pyhudi's: the metadata partitions that differ from the data built again, then checked",
      List.of(TABLE, optional("partition", StringType, "''"), PATH),
      columns("partition:string,rebuilt:boolean,differences:int")
    );
  }

  /** Hudi's PARAMETERS_ALL of the file-system view procedures, then {@code more} (show_fsview_latest's), then path. */
  private static List<Param> fsViewParams(Param... more) {
    List<Param> params = new ArrayList<>(
      List.of(
        TABLE,
        optional("max_instant", StringType, "''"),
        optional("include_max", BooleanType, "false"),
        optional("include_in_flight", BooleanType, "false"),
        optional("exclude_compaction", BooleanType, "false"),
        optional("limit", IntegerType, "10"),
        optional("path_regex", StringType) // Hudi's default ALL_PARTITIONS: NULL here, to tell it from given
      )
    );
    params.addAll(List.of(more));
    params.add(PATH);
    return params;
  }

  private static void add(String name, String description, List<Param> params, StructType output) {
    add(new ProcedureSpec(name, description, params, output, null));
  }

  private static void add(ProcedureSpec spec) {
    SPECS.put(spec.name(), spec);
  }

  /** A schema from "name:type,..." parts (nullable columns, as Hudi's). */
  private static StructType columns(String... parts) {
    StructType schema = new StructType();
    for (String column : String.join("", parts).split(",")) {
      String[] nameType = column.split(":");
      schema = schema.add(nameType[0], DataType.fromDDL(nameType[1]), true);
    }
    return schema;
  }

  /** "name(a => string, b => int)": how a call spells the procedure's arguments. */
  static String signature(ProcedureSpec spec) {
    List<String> params = new ArrayList<>();
    for (Param p : spec.params()) {
      params.add(p.name() + " => " + p.type().simpleString() + (p.required() ? " (required)" : ""));
    }
    return spec.name() + "(" + String.join(", ", params) + ")";
  }

  static String known() {
    return SPECS.keySet().stream().collect(Collectors.joining(", "));
  }
}
