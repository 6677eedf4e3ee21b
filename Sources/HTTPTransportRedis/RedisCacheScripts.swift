/// The Lua scripts behind `RedisCacheStorage`: each a single atomic round trip.
extension RedisScripts {
    /// KEYS: salt. ARGV: a fresh salt (hex). Keeps the first salt ever set; returns the salt.
    static let salt = RedisScript("""
        redis.call('SET', KEYS[1], ARGV[1], 'NX')
        return redis.call('GET', KEYS[1])
        """)

    /// KEYS: a URL's variant set. ARGV: most variants, most bytes. Returns {variant, entry, …}:
    /// at most that many variants and bytes (a set or entries someone else wrote, of any size or
    /// type, cost a bounded reply and no error), forgetting variants that expired.
    static let cacheEntries = RedisScript("""
        if redis.replicate_commands then redis.replicate_commands() end
        local result, most, room = {}, tonumber(ARGV[1]), tonumber(ARGV[2])
        if redis.call('TYPE', KEYS[1]).ok ~= 'set' then return result end
        for _, variant in ipairs(redis.call('SRANDMEMBER', KEYS[1], most)) do
            local key = KEYS[1] .. ':' .. variant
            local kind = redis.call('TYPE', key).ok
            if kind == 'none' then
                redis.call('SREM', KEYS[1], variant)
            elseif kind == 'string' and redis.call('STRLEN', key) <= room then
                local entry = redis.call('GET', key)
                room = room - #entry
                table.insert(result, variant)
                table.insert(result, entry)
            end
        end
        return result
        """)

    /// KEYS: a URL's variant set. ARGV: variant, entry, milliseconds to live. The set lives as
    /// long as its longest-lived entry.
    static let cacheStore = RedisScript("""
        local ttl = tonumber(ARGV[3])
        local kind = redis.call('TYPE', KEYS[1]).ok
        if kind ~= 'set' and kind ~= 'none' then redis.call('DEL', KEYS[1]) end
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
