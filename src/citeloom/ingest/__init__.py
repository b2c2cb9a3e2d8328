"""Sources to chunks to the index: the pipeline and its executors (in process, a pool of
processes, Ray)."""
