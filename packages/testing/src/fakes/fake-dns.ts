import dns2 from 'dns2';

const { Packet } = dns2;

export type ZoneRecord = {
  name: string;
  type: 'TXT' | 'MX' | 'CNAME';
  value: string;
  priority?: number;
  /** TXT: publish the value as strings of this many bytes (at most 255, the default), as some DNS hosts split them. */
  chunkSize?: number;
};

export type FakeDns = {
  /** `127.0.0.1:port`, for `DNS_SERVERS`. */
  address: string;
  /** Replaces what the server answers. */
  setRecords(records: ZoneRecord[]): void;
  /** While true every query gets SERVFAIL, as from a resolver that is down. */
  setFailing(failing: boolean): void;
  close(): Promise<void>;
};

const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;

/** TXT strings are at most 255 bytes each; longer values (DKIM keys) go out in several, as DNS hosts publish them. */
const chunks = (value: string, size = 255) => value.match(new RegExp(`.{1,${Math.min(size, 255)}}`, 'g')) ?? [''];

/**
 * A real DNS server (UDP, `dns2`) on 127.0.0.1 and a free port, answering TXT, MX and CNAME questions from the
 * records it is given: NXDOMAIN for an unknown name, an empty answer for a known name without that type.
 * @example const dns = await startFakeDns([{ name: '_dmarc.example.com', type: 'TXT', value: 'v=DMARC1; p=none;' }]);
 * const deps = createTestDeps({ DNS_SERVERS: dns.address });
 */
export async function startFakeDns(initial: ZoneRecord[] = []): Promise<FakeDns> {
  let records = initial;
  let failing = false;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      if (failing || !question) {
        response.header.rcode = RCODE_SERVFAIL;
        return send(response);
      }
      const name = question.name.toLowerCase().replace(/\.$/, '');
      const atName = records.filter((r) => r.name.toLowerCase() === name);
      if (atName.length === 0) response.header.rcode = RCODE_NXDOMAIN;
      for (const record of atName) {
        const base = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
        if (record.type === 'TXT' && question.type === Packet.TYPE.TXT)
          response.answers.push({ ...base, type: Packet.TYPE.TXT, data: chunks(record.value, record.chunkSize) } as never);
        if (record.type === 'MX' && question.type === Packet.TYPE.MX)
          response.answers.push({ ...base, type: Packet.TYPE.MX, exchange: record.value, priority: record.priority ?? 10 } as never);
        if (record.type === 'CNAME' && question.type === Packet.TYPE.CNAME) response.answers.push({ ...base, type: Packet.TYPE.CNAME, domain: record.value } as never);
      }
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = (addresses as { udp: { port: number } }).udp.port;
  return {
    address: `127.0.0.1:${port}`,
    setRecords(next) {
      records = next;
    },
    setFailing(next) {
      failing = next;
    },
    async close() {
      await server.close();
    },
  };
}
