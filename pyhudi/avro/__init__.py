"""avro"""
