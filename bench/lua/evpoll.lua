-- GET /v1/sessions/{id}/events?after=0&wait=0 (the kept history, no wait), round-robin over
-- the sessions in IDS_FILE. For bench/profile, not bench/run.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
round_robin_reads("/events?after=0&wait=0")
