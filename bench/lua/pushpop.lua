-- Push then pop on every session in IDS_FILE, round-robin: request i goes to session
-- i % n and pushes on even rounds, pops on odd ones, so each stack stays bounded. With
-- more sessions than connections, a session's previous request has always been
-- answered before its next one is sent, so a pop never overtakes its push.
-- PREFER, when set, goes out as the Prefer header (return=minimal: answers without the tree).
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
alternating_writes(
  function(session, base)
    return wrk.format("POST", base .. "/push",
      preferring(auth_headers(session, { ["Content-Type"] = "application/json" })), push_body(session.id))
  end,
  function(session, base)
    return wrk.format("POST", base .. "/pop", preferring(auth_headers(session)), "")
  end)
