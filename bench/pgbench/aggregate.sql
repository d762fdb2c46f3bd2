SELECT count(*), sum(abalance) FROM pgbench_accounts;
