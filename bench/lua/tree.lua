-- GET /v1/sessions/{id}, round-robin over the sessions in IDS_FILE.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
round_robin_reads("")
