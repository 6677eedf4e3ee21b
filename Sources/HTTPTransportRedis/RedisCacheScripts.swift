/// The Lua scripts behind `RedisCacheStorage`: each a single atomic round trip.
extension RedisScripts {
    /// KEYS: salt. ARGV: a fresh salt (hex). Keeps the first salt ever set; returns the salt.
    static let salt = RedisScript("""
        redis.call('SET', KEYS[1], ARGV[1], 'NX')
        return redis.call('GET', KEYS[1])
        """)

    /// KEYS: a URL's variant set. Returns {variant, entry, …}, forgetting variants that expired.
    static let cacheEntries = RedisScript("""
        local result = {}
        for _, variant in ipairs(redis.call('SMEMBERS', KEYS[1])) do
            local entry = redis.call('GET', KEYS[1] .. ':' .. variant)
            if entry then
                table.insert(result, variant)
                table.insert(result, entry)
            else
                redis.call('SREM', KEYS[1], variant)
            end
        end
        return result
        """)

    /// KEYS: a URL's variant set. ARGV: variant, entry, milliseconds to live. The set lives as
    /// long as its longest-lived entry.
    static let cacheStore = RedisScript("""
        local ttl = tonumber(ARGV[3])
        redis.call('SET', KEYS[1] .. ':' .. ARGV[1], ARGV[2], 'PX', ttl)
        redis.call('SADD', KEYS[1], ARGV[1])
        if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
        return 1
        """)

    /// KEYS: a URL's variant set. Removes it and its entries.
    static let cacheRemoveAll = RedisScript("""
        for _, variant in ipairs(redis.call('SMEMBERS', KEYS[1])) do
            redis.call('DEL', KEYS[1] .. ':' .. variant)
        end
        redis.call('DEL', KEYS[1])
        return 1
        """)
}
