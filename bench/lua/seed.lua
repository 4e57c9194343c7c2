-- Not a benchmark: creates SEED_SESSIONS sessions and brings each to the measured shape,
-- then writes SEED_DONE_FILE (bench/run waits for it and stops wrk). Run with one thread.
-- SEED_KIND=ours: one batch per session (two pushes and a sheet), so 3 screens and one
-- presentation; SEED_KIND=c: two pushes (the C server has no presentations).
local target = tonumber(os.getenv("SEED_SESSIONS") or "100000")
local kind = os.getenv("SEED_KIND") or "ours"
local idle_path = os.getenv("SEED_IDLE_PATH") or "/healthz"
local json = { ["Content-Type"] = "application/json" }
local params = '"params":{"itemId":"100042","title":"Seeded item","source":"seed","variant":"b"}'
local batch = '{"operations":[{"op":"push","screen":"message","title":"Message",' .. params ..
  '},{"op":"push","screen":"detail",' .. params ..
  '},{"op":"present","style":"sheet","screen":"compose","title":"New message","params":{"draft":"d1"}}]}'
local push = '{"screen":"detail",' .. params .. '}'
local created, sent, shaped, failed, finished = 0, 0, 0, 0, false
local per_session = kind == "ours" and 1 or 2
local queue, head, tail = {}, 1, 0
local create, idle
function init(args)
  create = wrk.format("POST", "/v1/sessions", json, '{"root":{"screen":"inbox","title":"Inbox","params":{"folder":"all"}}}')
  idle = wrk.format("GET", idle_path)
end
local verified = false
function request()
  if not verified then verified = true; return idle end
  if head <= tail then
    local item = queue[head]; queue[head] = nil; head = head + 1
    local headers = { ["Content-Type"] = "application/json" }
    if item.token ~= "" then headers["Authorization"] = "Bearer " .. item.token end
    if kind == "ours" then
      return wrk.format("POST", "/v1/sessions/" .. item.id .. "/batch", headers, batch)
    end
    return wrk.format("POST", "/v1/sessions/" .. item.id .. "/push", headers, push)
  end
  if sent < target then
    sent = sent + 1
    return create
  end
  return idle
end
function response(status, headers, body)
  if status == 201 then
    local id = body:match('"id"%s*:%s*"([^"]+)"')
    local token = body:match('"token"%s*:%s*"([^"]+)"') or ""
    created = created + 1
    for _ = 1, per_session do tail = tail + 1; queue[tail] = { id = id, token = token } end
  elseif status == 200 and (body:find('"revision"', 1, true) or body:find('"depth"', 1, true)) then
    shaped = shaped + 1
  elseif status >= 400 then
    failed = failed + 1
  end
  if not finished and (created >= target and shaped >= target * per_session or failed > 0) then
    finished = true
    local line = string.format("SEEDED sessions=%d shaped=%d failed=%d\n", created, shaped, failed)
    local f = io.open(os.getenv("SEED_DONE_FILE"), "w"); f:write(line); f:close()
    wrk.thread:stop()
  end
end
