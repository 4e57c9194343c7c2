-- POST /v1/sessions: a session of one root screen each time.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
local create
function init(args)
  create = wrk.format("POST", "/v1/sessions", { ["Content-Type"] = "application/json" },
    '{"root":{"screen":"inbox","title":"Inbox","params":{"folder":"all"}}}')
end
function request() return create end
