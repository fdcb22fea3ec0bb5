#!/usr/bin/env python3
"""An MCP client nobody here wrote: the official Python SDK (`mcp` on PyPI, pinned in
requirements.txt) over streamable HTTP. Connects to URL, lists the tools, calls browser_logs,
browser_snapshot, a click batch (STEPS, JSON) and browser_logs again, and prints what it got as
one JSON object. `--mode auto` (the SDK's default) probes server/discover and speaks 2026-07-28
when the server does; `--mode legacy` forces the initialize handshake. Exit code 1 on any error.

Usage: scripts/mcp/setup python && target/mcp-venv/bin/python scripts/mcp/py_client.py URL 'STEPS' [--mode auto|legacy]
"""

import argparse
import asyncio
import json
import sys

from mcp import Client


def text(result):
    parts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
    return {"text": "\n".join(parts), "isError": bool(result.is_error)}


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("steps")
    ap.add_argument("--mode", default="auto", choices=["auto", "legacy"])
    args = ap.parse_args()
    out = {"sdk": "mcp (python)", "mode": args.mode}
    try:
        async with Client(args.url, mode=args.mode, raise_exceptions=True) as client:
            out["protocolVersion"] = client.protocol_version
            info = client.server_info
            out["serverInfo"] = info.model_dump() if info else None
            out["instructions"] = client.instructions
            listed = await client.list_tools()
            out["tools"] = [t.name for t in listed.tools]
            out["logs"] = text(await client.call_tool("browser_logs", {"limit": 20}))
            out["snapshot"] = text(await client.call_tool("browser_snapshot", {}))
            out["click"] = text(await client.call_tool("browser_run", {"steps": json.loads(args.steps)}))
            out["logsAfter"] = text(await client.call_tool("browser_logs", {"limit": 20}))
            out["actions"] = text(await client.call_tool("browser_actions", {}))
    except BaseException as e:  # noqa: BLE001 - report whatever the SDK raised, as JSON
        out["error"] = f"{type(e).__name__}: {e}"
        print(json.dumps(out))
        sys.exit(1)
    print(json.dumps(out))


asyncio.run(main())
