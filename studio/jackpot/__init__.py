"""The progressive jackpot pool shared by every Caribbean Stud table, in PostgreSQL.

`sharing` is the pure arithmetic (contributions, royal-flush shares) in integer minor units;
`pool` keeps the pool, the posts and the payouts in the archive's database, in transactions.
"""
