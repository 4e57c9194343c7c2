-- GET /v1/sessions/{id}/export, round-robin over the sessions in IDS_FILE. For bench/profile,
-- not bench/run.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
round_robin_reads("/export")
