-- 80% reads, 20% writes with If-Match, round-robin over the sessions in IDS_FILE.
-- Request i goes to session k = i % n on its v-th visit; one visit in five is a write,
-- pushing and popping by turns. Sessions start at revision START_REVISION and only this
-- script changes them, and a session's previous request is always answered before its
-- next one is sent (more sessions than connections), so the revision each write expects
-- is known without reading responses: a 412 would show up as an error.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
local sessions, n, i = {}, 0, -1
local visits, writes, reads = {}, {}, {}
local start = tonumber(os.getenv("START_REVISION") or "2")
local probe
function init(args)
  sessions = read_sessions(os.getenv("IDS_FILE"))
  n = #sessions
  for k, session in ipairs(sessions) do
    visits[k], writes[k] = 0, 0
    reads[k] = wrk.format("GET", "/v1/sessions/" .. session.id, auth_headers(session))
  end
  probe = reads[1]
end
local verified = false
function request()
  if not verified then verified = true; return probe end
  i = i + 1
  local k = (i % n) + 1
  local v = visits[k]
  visits[k] = v + 1
  if (v + k) % 5 ~= 0 then return reads[k] end
  local session = sessions[k]
  local w = writes[k]
  writes[k] = w + 1
  local headers = auth_headers(session, { ["If-Match"] = '"' .. (start + w) .. '"' })
  local base = "/v1/sessions/" .. session.id
  if w % 2 == 0 then
    headers["Content-Type"] = "application/json"
    return wrk.format("POST", base .. "/push", headers, push_body(session.id))
  end
  return wrk.format("POST", base .. "/pop", headers, "")
end
