-- A write flood: every request a new voter on one of 100 items.
-- wrk -t2 -c400 -d30s -s bench/flood.lua http://127.0.0.1:8080
-- wrk reports the refused share (503 too-many-in-flight) as "Non-2xx or 3xx responses".
local n = 0
request = function()
  n = n + 1
  local body = '{"item_type":"post","item_id":"f' .. (n % 100) .. '","vote_value":1,"mode":"set"}'
  return wrk.format("POST", "/v1/votes",
    {["Content-Type"] = "application/json", ["X-Tally-User"] = "flood-" .. math.random(1, 1000000000)}, body)
end
