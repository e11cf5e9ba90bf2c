"""Engine parity: Polars eager/lazy/streaming, DuckDB, Spark classic and Connect."""
