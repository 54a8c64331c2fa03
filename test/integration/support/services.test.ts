import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { service } from '../../support/service.js';

const postgres = service('postgres');
const redis = service('redis');
const mariadb = service('mariadb');

describe.skipIf(postgres.skip)('PostgreSQL test service', () => {
  it('round-trips a row through a real server', async () => {
    const c = new pg.Client({ connectionString: postgres.url });
    await c.connect();
    try {
      await c.query('CREATE TEMP TABLE rt (id int primary key, name text)');
      await c.query('INSERT INTO rt VALUES ($1, $2)', [7, 'héllo']);
      const r = await c.query('SELECT id, name, current_setting($1) AS fsync FROM rt', ['fsync']);
      expect(r.rows).toHaveLength(1);
      expect(r.rows[0]).toMatchObject({ id: 7, name: 'héllo' });
      // A server we started runs with fsync off; one given by PG_URL is the operator's business.
      if (!process.env.PG_URL) expect(r.rows[0].fsync).toBe('off');
    } finally {
      await c.end();
    }
  });
});

describe.skipIf(redis.skip)('Redis test service', () => {
  it('round-trips a key through a real server', async () => {
    const r = new Redis(redis.url!, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await r.connect();
    try {
      await r.set('shoal:rt', 'v1');
      expect(await r.get('shoal:rt')).toBe('v1');
      expect(await r.del('shoal:rt')).toBe(1);
    } finally {
      r.disconnect();
    }
  });
});

describe.skipIf(mariadb.skip)('MariaDB test service', () => {
  it('round-trips a row through a real server', async () => {
    const c = await mysql.createConnection(mariadb.url!);
    try {
      await c.query('CREATE DATABASE IF NOT EXISTS rt');
      await c.query('CREATE TABLE IF NOT EXISTS rt.t (id INT PRIMARY KEY, name VARCHAR(20)) CHARACTER SET utf8mb4');
      await c.query('REPLACE INTO rt.t VALUES (?, ?)', [7, 'héllo']);
      const [rows] = await c.query('SELECT id, name, VERSION() AS v FROM rt.t');
      const row = (rows as Array<{ id: number; name: string; v: string }>)[0];
      expect(row?.id).toBe(7);
      expect(row?.name).toBe('héllo');
      expect(row?.v).toMatch(/MariaDB/);
      await c.query('DROP DATABASE rt');
    } finally {
      await c.end();
    }
  });
});
