-- Shared by every workload: done() prints one line that bench/run parses.
-- Latencies in microseconds, from wrk's own histogram (the same figures as --latency).
function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "RESULT rps=%.1f p50_us=%d p99_us=%d max_us=%d requests=%d status_errors=%d socket_errors=%d\n",
    summary.requests / seconds, latency:percentile(50), latency:percentile(99), latency.max,
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout))
end

-- "id token" lines written by bench/clients.py setup; token is empty for the C server.
function read_sessions(path)
  local sessions = {}
  for line in io.lines(path) do
    local id, token = line:match("^(%S+)%s*(%S*)")
    if id then sessions[#sessions + 1] = { id = id, token = token } end
  end
  assert(#sessions > 0, path .. " holds no sessions")
  return sessions
end

function auth_headers(session, extra)
  local headers = extra or {}
  if session.token ~= "" then headers["Authorization"] = "Bearer " .. session.token end
  return headers
end

-- The push body of every write workload: a screen with a few params.
function push_body(id)
  return '{"screen":"detail","params":{"itemId":"' .. id:sub(1, 6) ..
         '","title":"Bench item","source":"wrk","variant":"b"}}'
end

-- Defines init() and request() for a GET of every session's path plus `suffix`, round-robin
-- over the sessions in IDS_FILE (tree.lua, export.lua, evpoll.lua).
function round_robin_reads(suffix)
  local requests, i = {}, 0
  function init(args)
    for k, session in ipairs(read_sessions(os.getenv("IDS_FILE"))) do
      requests[k] = wrk.format("GET", "/v1/sessions/" .. session.id .. suffix, auth_headers(session))
    end
  end
  function request()
    i = i + 1
    return requests[(i % #requests) + 1]
  end
end

-- The Prefer header from PREFER, when set (return=minimal: answers without the tree).
function preferring(headers)
  local prefer = os.getenv("PREFER")
  if prefer ~= nil and prefer ~= "" then headers["Prefer"] = prefer end
  return headers
end

-- Defines init() and request() for two writes taken by turns, round-robin over the sessions
-- in IDS_FILE: request i goes to session i % n, the first write on even rounds and the
-- second on odd ones (pushpop.lua, presdis.lua). `first` and `second` make a session's
-- request from its id, token and path. With more sessions than connections, a session's
-- previous request has always been answered before its next one is sent.
function alternating_writes(first, second)
  local firsts, seconds, n, i = {}, {}, 0, -1
  local probe
  function init(args)
    for k, session in ipairs(read_sessions(os.getenv("IDS_FILE"))) do
      local base = "/v1/sessions/" .. session.id
      firsts[k] = first(session, base)
      seconds[k] = second(session, base)
      if k == 1 then probe = wrk.format("GET", base, auth_headers(session)) end
    end
    n = #firsts
  end
  local verified = false
  function request()
    -- wrk calls request() once only to check it and never sends that one: give it a read.
    if not verified then verified = true; return probe end
    i = i + 1
    local k = (i % n) + 1
    if math.floor(i / n) % 2 == 0 then return firsts[k] end
    return seconds[k]
  end
end
