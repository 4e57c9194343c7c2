-- GET /v1/sessions/{id}/export, round-robin over the sessions in IDS_FILE. For bench/profile, not bench/run.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
local requests, i = {}, 0
function init(args)
  for k, session in ipairs(read_sessions(os.getenv("IDS_FILE"))) do
    requests[k] = wrk.format("GET", "/v1/sessions/" .. session.id .. "/export", auth_headers(session))
  end
end
function request()
  i = i + 1
  return requests[(i % #requests) + 1]
end
