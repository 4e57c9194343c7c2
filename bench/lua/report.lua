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
