import { describe, expect, it } from 'vitest';
import { renderHaproxyConfig } from '../../../src/core/fleet/haproxy-config.js';
import { parseShowStat } from '../../../src/core/fleet/haproxy-stats.js';

describe('the fleet HAProxy configuration', () => {
  const cfg = (retryOn: 'read' | 'write') =>
    renderHaproxyConfig({ port: 9000, members: [{ name: 'shoal-1', port: 9001 }, { name: 'shoal-2', port: 9002 }], statsSocket: '/tmp/x/haproxy.sock', retryOn });

  it('checks GET /ready every second, down after 2 failures, up after 2 successes, on loopback only', () => {
    const text = cfg('read');
    expect(text).toContain('bind 127.0.0.1:9000');
    expect(text).toContain('http-check send meth GET uri /ready ver HTTP/1.1 hdr Host 127.0.0.1');
    expect(text).toContain('http-check expect status 200');
    expect(text).toContain('default-server inter 1s fall 2 rise 2');
    expect(text).toContain('server shoal-1 127.0.0.1:9001 check');
    expect(text).toContain('server shoal-2 127.0.0.1:9002 check');
    expect(text).toContain('stats socket /tmp/x/haproxy.sock mode 600');
  });

  it('keeps an unchecked backup entry per member for when every check fails at once', () => {
    const text = cfg('read');
    expect(text).toContain('server shoal-1-last-resort 127.0.0.1:9001 backup');
    expect(text).toContain('option allbackups');
    expect(text).not.toMatch(/last-resort .*check/);
  });

  it('retries a read on any failure before an answer, a write only when it never reached an instance', () => {
    expect(cfg('read')).toMatch(/retry-on .*response-timeout/);
    expect(cfg('read')).toMatch(/retry-on .*empty-response/);
    const write = cfg('write').split('\n').find((l) => l.includes('retry-on'));
    expect(write?.trim()).toBe('retry-on conn-failure 503');
  });
});

describe('show stat', () => {
  it('reads each server of the members backend, not the frontend or the backend line', () => {
    const csv = [
      '# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight,act,bck,chkfail,chkdown,lastchg,downtime,qlimit,pid,iid,sid,throttle,lbtot,tracked,type,rate,rate_lim,rate_max,check_status',
      'fleet,FRONTEND,,,0,2,4096,12,0,0,0,0,0,,,,,OPEN,,,,,,,,,1,2,0,,,,0,0,0,2,',
      'members,shoal-1,0,0,0,1,,7,0,0,,0,,0,0,0,0,UP,1,1,0,0,0,10,0,,1,3,1,,7,,2,0,,1,L7OK',
      'members,shoal-2,0,0,0,1,,5,0,0,,0,,0,0,0,0,DOWN,1,1,0,1,1,2,2,,1,3,2,,5,,2,0,,1,L7STS',
      'members,shoal-1-last-resort,0,0,0,1,,0,0,0,,0,,0,0,0,0,no check,1,0,1,0,0,10,0,,1,3,1,,0,,2,0,,1,',
      'members,BACKEND,0,0,0,2,410,12,0,0,0,0,,0,0,0,0,UP,1,1,0,,0,10,0,,1,3,0,,12,,1,0,,2,',
      '',
    ].join('\n');
    expect(parseShowStat(csv, 'members')).toEqual([
      { name: 'shoal-1', status: 'UP', sessions: 7, check: 'L7OK' },
      { name: 'shoal-2', status: 'DOWN', sessions: 5, check: 'L7STS' },
    ]);
  });
});
