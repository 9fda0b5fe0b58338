"""Input and output: configs and their validation, the Parquet results, atomic files and locks."""
