"""Fake harness: echoes the payload back (and prints noise that must not reach stdout)."""

from repro.harnesses._protocol import serve


def main(payload):
    print("library noise on stdout")
    return {"echo": payload, "ok": True}


if __name__ == "__main__":
    serve(main)
