"""Secret redaction: throughput, and false positives on the real recorded fixtures.

Runs lorebook's redaction over every recorded hook payload, transcript, model request and
run output in shared/fixtures/harnesses and the real transcripts in shared/eval/transcripts
(none of which holds a real secret), prints each line it changed (a false positive, unless
it is a dummy key a fixture holds on purpose), and the throughput in MB/s and lines/s. Then
plants known secrets of every family in generated text (each also quoted whole in a JSON
transcript line) and checks each is redacted, and checks look-alikes of those families
come through unchanged.

    .venv/bin/python benchmarks/redaction.py
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from lorebook.secrets.redact import redact_many

SHARED = Path(__file__).resolve().parents[2] / "shared"
PLANTED: list[tuple[str, str, str]] = [
    # (family, line, the secret in it); made-up values in the providers' documented shapes
    ("aws", "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("aws", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("url", "git remote add origin https://deploy:hunter2hunter2@git.example.invalid/x.git",
     "hunter2hunter2"),
    ("token", "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnop"),
    ("token", "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyzABCDEFGHIJ1234567890",
     "sk-proj-abcdefghijklmnop"),
    ("prose", 'password = "correct horse battery staple"', "correct horse battery staple"),
    ("token", "slack: xoxb-123456789012-abcdefghijklmnopqrstuvwx", "xoxb-123456789012"),
    ("putty", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: k\nPublic-Lines: 1\n"
     "AAAAC3NzaC1lZDI1NTE5AAAAIOh3mBf0XL4Yc2jC1p1aE3Yl\nPrivate-Lines: 1\n"
     "AAAAIGk9Zx2Lq7Wm4Rt8Yp3Nv6Bc1Xs5Df9Gh2Jk4Lm7Qw0Ez\nPrivate-MAC: 5f2d3c9a8b7e6f1d0c4b3a2918",
     "AAAAIGk9Zx2Lq7Wm4Rt8Yp3Nv6Bc1Xs5Df9Gh2Jk4Lm7Qw0Ez"),
    ("key", "privateKey: MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCv5Rlnc9H30sqq",
     "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCv5Rlnc9H30sqq"),
    ("key", "  tls.key: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVBN2Jx",
     "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVBN2Jx"),
    ("age", "AGE-SECRET-KEY-1QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE",
     "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
    ("sas", "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig=Xk2%2Bq9LmN4pR7sT1vW3y"
     "Z5aB8cD0eF6gH2jK4lM6nP8%3D", "Xk2%2Bq9LmN4pR7sT1vW3yZ5aB8cD0eF6gH2jK4lM6nP8%3D"),
    ("npmrc", "//npm.internal.example/:_authToken=5d3c1a2b-9e8f-4a7b-8c6d-0e1f2a3b4c5d",
     "5d3c1a2b-9e8f-4a7b-8c6d-0e1f2a3b4c5d"),
    ("npmrc", "_auth=ZGVwbG95Ok5wNyF3cTJMeg==", "ZGVwbG95Ok5wNyF3cTJMeg=="),
    ("prose", "login root / password Tr1cky-Sky", "Tr1cky-Sky"),
    ("prose", "the password for root is Zebra77", "Zebra77"),
    ("dsn", "SENTRY_DSN=https://e3a1b2c4d5f60718293a4b5c6d7e8f90@o450000.ingest.sentry.io/55",
     "e3a1b2c4d5f60718293a4b5c6d7e8f90"),
    ("dsn", "Server=db;Database=app;User ID=sa;Password=Pa55w0rd!;", "Pa55w0rd!"),
    ("command", "keytool -genkeypair -keystore app.jks -storepass Ks!pass9", "Ks!pass9"),
    ("command", r"net use Z: \\fs01\share Sh4reP@ss /user:CORP\alice", "Sh4reP@ss"),
    ("command", "echo 'D0ck3rPw!' | docker login -u ci --password-stdin", "D0ck3rPw!"),
    ("command", "openssl pkcs12 -export -passout pass:Exp0rtPw -out c.p12", "Exp0rtPw"),
    ("huggingface", "login with hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh please",
     "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"),
    ("token", "run with dp.st.dev.bAqhcVzrhy5cRHkOlNTc0Ve6w5NUDCpcutm8vGE9myi",
     "bAqhcVzrhy5cRHkOlNTc0Ve6w5NUDCpcutm8vGE9myi"),
]  # fmt: skip
"""One or more secrets of each family: each is planted as written and in a JSON line."""
LOOK_ALIKES = [
    "the password field is required",
    "password: <your password here>",
    "keytool -list -keystore app.jks -storepass:env KS_PASS",
    "docker login -u ci --password-stdin < token.txt",
    "net use Z: \\\\fs01\\share /persistent:yes",
    "msbuild app.sln /p:Configuration=Release",
    "https://example.invalid/api?sig=${SIG}",
    "# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
    "PUBLIC_KEY=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAr+UZZ3PR99LKqhx0mgMxMJNJnyjN",
    "--- PASS: TestParseConfig (0.00s)",
    "the PuTTY key format is documented in appendix C",
    "file.py:12:5:E501:line too long",
    "see the HF_TOKEN variable",
    "Use 1Password for password management",
]
"""Look-alikes of the planted families: each must come through unchanged."""


def fixture_texts() -> list[tuple[Path, str]]:
    """Every text file of the recorded fixtures and real transcripts."""
    roots = [SHARED / "fixtures" / "harnesses", SHARED / "eval" / "transcripts"]
    found = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in (
                ".jsonl",
                ".json",
                ".md",
                ".stdout",
                ".stderr",
                ".toml",
            ):
                try:
                    found.append((path, path.read_text(encoding="utf-8")))
                except UnicodeDecodeError:
                    continue
    return found


def main() -> None:
    """Measure and report."""
    texts = fixture_texts()
    if not texts:
        raise SystemExit(f"no fixtures under {SHARED}")
    size = sum(len(t.encode()) for _, t in texts)
    lines = sum(t.count("\n") + 1 for _, t in texts)
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        out = redact_many([t for _, t in texts])
        runs.append(time.perf_counter() - started)
    seconds = statistics.median(runs)
    changed = 0
    for (path, text), clean in zip(texts, out, strict=True):
        for before, after in zip(text.split("\n"), clean.split("\n"), strict=False):
            if before != after:
                changed += 1
                print(f"changed: {path.relative_to(SHARED)}: {before.strip()[:120]}")
    print(f"{len(texts)} files, {lines} lines, {size / 1e6:.2f} MB")
    print(f"lines changed (false positives unless a fixture's dummy key): {changed}")
    print(
        f"throughput (median of 3): {size / seconds / 1e6:.2f} MB/s, {lines / seconds:.0f} lines/s"
    )
    report_planted()


def report_planted() -> None:
    """Plant each secret as written and in a JSON transcript line; print what stays."""
    texts = [line for _, line, _ in PLANTED]
    texts += [json.dumps({"type": "user", "message": {"content": line}}) for line in texts]
    clean = redact_many(texts)
    secrets = [secret for _, _, secret in PLANTED] * 2
    missed = [(text, secret) for text, secret, out in zip(texts, secrets, clean, strict=True)
              if secret in out or json.dumps(secret)[1:-1] in out]  # fmt: skip
    families = sorted({family for family, _, _ in PLANTED})
    print(f"planted secrets redacted: {len(texts) - len(missed)}/{len(texts)} "
          f"({len(PLANTED)} secrets of {len(families)} families, each as written and "
          f"in a JSON line)")  # fmt: skip
    for text, _ in missed:
        print(f"  missed: {text[:120]}")
    changed = [line for line, out in zip(LOOK_ALIKES, redact_many(LOOK_ALIKES), strict=True)
               if out != line]  # fmt: skip
    print(f"look-alikes changed: {len(changed)}/{len(LOOK_ALIKES)}")
    for line in changed:
        print(f"  changed: {line}")


if __name__ == "__main__":
    main()
