-- Push then pop on every session in IDS_FILE, round-robin: request i goes to session
-- i % n and pushes on even rounds, pops on odd ones, so each stack stays bounded. With
-- more sessions than connections, a session's previous request has always been
-- answered before its next one is sent, so a pop never overtakes its push.
-- PREFER, when set, goes out as the Prefer header (return=minimal: answers without the tree).
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
local pushes, pops, n, i = {}, {}, 0, -1
local probe
local prefer = os.getenv("PREFER")
local function preferring(headers)
  if prefer ~= nil and prefer ~= "" then headers["Prefer"] = prefer end
  return headers
end
function init(args)
  for k, session in ipairs(read_sessions(os.getenv("IDS_FILE"))) do
    local base = "/v1/sessions/" .. session.id
    pushes[k] = wrk.format("POST", base .. "/push",
      preferring(auth_headers(session, { ["Content-Type"] = "application/json" })), push_body(session.id))
    pops[k] = wrk.format("POST", base .. "/pop", preferring(auth_headers(session)), "")
    if k == 1 then probe = wrk.format("GET", base, auth_headers(session)) end
  end
  n = #pushes
end
local verified = false
function request()
  -- wrk calls request() once only to check it and never sends that one: give it a read.
  if not verified then verified = true; return probe end
  i = i + 1
  local k = (i % n) + 1
  if math.floor(i / n) % 2 == 0 then return pushes[k] end
  return pops[k]
end
