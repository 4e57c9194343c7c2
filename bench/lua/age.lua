-- Not a benchmark: ages every session of IDS_FILE by AGE_CHANGES changes (push and pop by
-- turns, so stacks stay bounded while each session's history fills), then writes
-- AGE_DONE_FILE (bench/run waits for it and stops wrk). Run with one thread. A session's next
-- change is sent only once its last one is answered, so a pop never overtakes its push.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
local target = tonumber(os.getenv("AGE_CHANGES") or "600")
local sessions, by_id = {}, {}
local ready, head, tail = {}, 1, 0
local answered, failed, finished, total = 0, 0, false, 0
local idle
function init(args)
  for k, session in ipairs(read_sessions(os.getenv("IDS_FILE"))) do
    local base = "/v1/sessions/" .. session.id
    sessions[k] = {
      push = wrk.format("POST", base .. "/push", auth_headers(session, { ["Content-Type"] = "application/json" }),
        push_body(session.id)),
      pop = wrk.format("POST", base .. "/pop", auth_headers(session), ""),
      made = 0,
    }
    by_id[session.id] = k
    tail = tail + 1
    ready[tail] = k
  end
  total = #sessions * target
  idle = wrk.format("GET", "/healthz")
end
local verified = false
function request()
  -- wrk calls request() once only to check it and never sends that one.
  if not verified then verified = true; return idle end
  -- Every session has a change in flight (or is done): a cheap read keeps the connection going.
  if head > tail then return idle end
  local k = ready[head]; ready[head] = nil; head = head + 1
  local session = sessions[k]
  if session.made % 2 == 0 then return session.push end
  return session.pop
end
function response(status, headers, body)
  -- Answers come back in any order across connections: the session's id, the answer's first
  -- member, says whose change this was.
  local id = body:match('^{"id":"([^"]+)"')
  local k = id and by_id[id]
  if k == nil then
    if status >= 400 then failed = failed + 1 end
  else
    local session = sessions[k]
    if status ~= 200 then failed = failed + 1 end
    session.made = session.made + 1
    answered = answered + 1
    if session.made < target then tail = tail + 1; ready[tail] = k end
  end
  if not finished and (answered >= total or failed > 0) then
    finished = true
    local f = io.open(os.getenv("AGE_DONE_FILE"), "w")
    f:write(string.format("AGED sessions=%d changes=%d failed=%d\n", #sessions, answered, failed))
    f:close()
    wrk.thread:stop()
  end
end
