// The official TypeScript SDK v2 (`@modelcontextprotocol/client`, from the npm prefix in
// SKILLPATH_CONFORMANCE) as a client of a skillpath server over HTTP, for the integration tests
// (crates/skillpath/tests/it/mcp_inspector.rs).
//
//   node typescript_client.mjs URL ERA skills
//     `SkillsClient.list()` without `skipInvalid` (it throws for the whole listing at the first
//     entry it refuses); prints {"version", "names"}.
//   node typescript_client.mjs URL ERA uris
//     Every URI the server lists (resources/list, the Skills extension's entries and their
//     files, `load_skill`'s base URI and files) checked with Node's URL parser and RFC 3986's
//     grammar, then read back through resources/read as listed and raw (decoded, as clients
//     that kept a URI from before the encoding hold it); prints {"checked", "read", "problems"}.
//
// ERA is `2025-11-25` (the legacy handshake) or `2026-07-28` (pinned, `server/discover`).

import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(join(process.env.SKILLPATH_CONFORMANCE, "package.json"));
const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
const { SkillsClient } = require("@modelcontextprotocol/client/ext/skills");

// RFC 3986's `scheme "://" reg-name path-abempty` (no userinfo, port, query or fragment),
// every character outside the unreserved and sub-delims percent-encoded.
const RFC3986 =
  /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})+(?:\/(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})*)*$/;

const [url, era, mode] = process.argv.slice(2);
const versionNegotiation = era === "2025-11-25" ? { mode: "legacy" } : { mode: { pin: era } };
const client = new Client({ name: "skillpath-test", version: "1" }, { versionNegotiation });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const version = client.getNegotiatedProtocolVersion();
if (version !== era) throw new Error(`negotiated ${version}, not ${era}`);

if (mode === "skills") {
  const { skills } = await new SkillsClient(client).list();
  console.log(JSON.stringify({ version, names: skills.map((skill) => skill.frontmatter.name) }));
} else if (mode === "uris") {
  console.log(JSON.stringify(await checkUris()));
} else {
  throw new Error(`unknown mode ${mode}`);
}
await client.close();

/** Why `uri` is not a URI as given, or nothing. */
function refusal(uri) {
  if (!RFC3986.test(uri)) return "does not match RFC 3986's grammar";
  let parsed;
  try {
    parsed = new URL(uri);
  } catch (error) {
    return `new URL() throws: ${error.message}`;
  }
  if (parsed.href !== uri) return `new URL() reads it as ${parsed.href}`;
  return undefined;
}

/** `uri` with its name and path decoded: the raw form of before the encoding. */
function raw(uri) {
  const [scheme, rest] = uri.split("://");
  return `${scheme}://${rest.split("/").map(decodeURIComponent).join("/")}`;
}

async function checkUris() {
  const problems = [];
  const listed = new Map();
  const note = (uri, where) => {
    const why = refusal(uri);
    if (why !== undefined) problems.push(`${JSON.stringify(uri)} (${where}) ${why}`);
    if (!listed.has(uri)) listed.set(uri, where);
  };
  const resources = [];
  let cursor;
  do {
    const page = await client.listResources(cursor === undefined ? {} : { cursor });
    resources.push(...page.resources);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  for (const resource of resources) note(resource.uri, "resources/list");
  const { skills } = await new SkillsClient(client, { skipInvalid: true }).list();
  for (const skill of skills) {
    note(skill.uri, "skills/list");
    for (const file of skill.resources) note(file.uri, `skills/list ${skill.uri}`);
  }
  // Each skill's loaded content names its directory and its files relative to it.
  const manifests = resources.filter((r) => r.uri.startsWith("skill://") && r.uri.endsWith("/SKILL.md"));
  for (const manifest of manifests) {
    const result = await client.callTool({ name: "load_skill", arguments: { name: manifest.name } });
    const text = result.content[0].text;
    const directory = /^Skill directory: (\S+)$/m.exec(text)?.[1];
    if (directory === undefined) {
      problems.push(`load_skill ${manifest.name} names no directory: ${text.slice(-400)}`);
      continue;
    }
    note(directory, `load_skill ${manifest.name}`);
    for (const [, file] of text.matchAll(/<file>(.*)<\/file>/g)) {
      note(new URL(file, directory).href, `load_skill ${manifest.name} <file>${file}</file>`);
    }
  }
  let read = 0;
  for (const [uri, where] of listed) {
    if (uri.endsWith("/")) continue; // a directory, not a file
    const forms = uri === raw(uri) ? [uri] : [uri, raw(uri)];
    const texts = [];
    for (const form of forms) {
      try {
        const result = await client.readResource({ uri: form });
        texts.push(JSON.stringify(result.contents.map((c) => c.text ?? c.blob)));
        read += 1;
      } catch (error) {
        problems.push(`reading ${JSON.stringify(form)} (${where}) failed: ${error.message}`);
      }
    }
    if (texts.length === 2 && texts[0] !== texts[1]) {
      problems.push(`${JSON.stringify(uri)} and its raw form read differently`);
    }
  }
  return { checked: listed.size, read, problems };
}
