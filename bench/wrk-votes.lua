-- wrk -t2 -c1000 -d30s -s bench/wrk-votes.lua http://127.0.0.1:8080
-- POST /v1/votes as a new voter per request (X-Tally-User, trusted in the dev profile) on 100,000 items,
-- so per-voter quotas never refuse. wrk prints "Non-2xx or 3xx responses" when any vote was not 200/202.
local counter = 0
local thread_id = 0

function setup(thread)
  thread:set("tid", thread_id)
  thread_id = thread_id + 1
end

function init(args)
  math.randomseed(os.time() + tid)
end

function request()
  counter = counter + 1
  local voter = "wrk-" .. tid .. "-" .. os.time() .. "-" .. counter
  local body = string.format('{"item_type":"post","item_id":"w%d","vote_value":1,"mode":"set"}', math.random(0, 99999))
  return wrk.format("POST", "/v1/votes", {["Content-Type"] = "application/json", ["X-Tally-User"] = voter}, body)
end

