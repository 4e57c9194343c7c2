-- Present a sheet, then dismiss it with a result, on every session in IDS_FILE, round-robin
-- as pushpop.lua does (a session's present is answered before its dismiss is sent). For
-- bench/profile (`bench/profile --instructions presdis`), not a bench/run workload: a present
-- or a dismiss is re-encoded whole, where a push or a pop edits the last JSON (item 73).
-- PREFER, when set, goes out as the Prefer header.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
local presents, dismisses, n, i = {}, {}, 0, -1
local probe
local prefer = os.getenv("PREFER")
local function preferring(headers)
  if prefer ~= nil and prefer ~= "" then headers["Prefer"] = prefer end
  return headers
end
function init(args)
  for k, session in ipairs(read_sessions(os.getenv("IDS_FILE"))) do
    local base = "/v1/sessions/" .. session.id
    presents[k] = wrk.format("POST", base .. "/present",
      preferring(auth_headers(session, { ["Content-Type"] = "application/json" })), '{"style":"sheet","screen":"compose","title":"New message","params":{"draft":"x"}}')
    dismisses[k] = wrk.format("POST", base .. "/dismiss",
      preferring(auth_headers(session, { ["Content-Type"] = "application/json" })), '{"result":{"saved":true}}')
    if k == 1 then probe = wrk.format("GET", base, auth_headers(session)) end
  end
  n = #presents
end
local verified = false
function request()
  -- wrk calls request() once only to check it and never sends that one: give it a read.
  if not verified then verified = true; return probe end
  i = i + 1
  local k = (i % n) + 1
  if math.floor(i / n) % 2 == 0 then return presents[k] end
  return dismisses[k]
end
