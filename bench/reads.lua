-- Random single-item reads over items i1..i1000.
-- wrk -t2 -c32 -d20s --latency -s bench/reads.lua http://127.0.0.1:8080
math.randomseed(42)
request = function()
  return wrk.format("GET", "/v1/votes/post/i" .. math.random(1, 1000))
end
