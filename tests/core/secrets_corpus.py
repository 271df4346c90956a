"""How people write secrets in coding sessions, and benign values that look like secrets.

Every form is a line as a user, an assistant, a tool input or a tool error would hold it,
with the secret values it contains (each must be gone after redaction). The values are
made up for the corpus (none is a real credential); several follow the providers'
documented example shapes.
"""

from __future__ import annotations

AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
GH = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0UvWxYz"
HF = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
ANT = "sk-ant-api03-" + "Zq7Xw9Vy1Ut3Sr5Qp7On9Ml1Kj3Ih5Gf7Ed9Cb1A" + "_-x2Y4z6"
OAI = "sk-proj-" + "Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0KkLlMm"
HEX_KEY = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)

FORMS: list[tuple[str, str, tuple[str, ...]]] = [
    ("aws in prose", f"my key is {AWS_ID} and secret {AWS_SECRET}", (AWS_ID, AWS_SECRET)),
    ("aws secret in prose", f"the aws secret access key is {AWS_SECRET}", (AWS_SECRET,)),
    ("aws env", f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET}", (AWS_SECRET,)),
    ("aws id env", f"AWS_ACCESS_KEY_ID={AWS_ID}", (AWS_ID,)),
    ("bearer header", "curl -H 'Authorization: Bearer tok3nValue9xYzQ7w' api", ("tok3nValue9xYzQ7w",)),
    ("bearer json", '{"Authorization": "Bearer abcDEF123456ghiJKL"}', ("abcDEF123456ghiJKL",)),
    ("basic header", "Authorization: Basic dXNlcjpodW50ZXIy", ("dXNlcjpodW50ZXIy",)),
    ("bearer prose", "use bearer Zk29xLq8Wm41Rt7Y for the staging api", ("Zk29xLq8Wm41Rt7Y",)),
    ("mysql url short pw", "mysql://root:hunter2@db.internal:3306/app", ("hunter2",)),
    ("redis url no user", "REDIS_URL=redis://:pw@cache:6379/0", (":pw@",)),
    ("postgres url", "postgresql://app:s3cr3tPa55@10.0.0.5/prod", ("s3cr3tPa55",)),
    ("git remote creds", "git clone https://deploy:hunter2hunter2@git.example.invalid/x.git", ("hunter2hunter2",)),
    ("hugging face", f"HF token: {HF}", (HF,)),
    ("hugging face bare", f"login with {HF} please", (HF,)),
    ("db password prose", "the staging db password is hunter2", ("hunter2",)),
    ("password prose word", "my password is swordfish, don't share it", ("swordfish",)),
    ("password colon", "password: Tr0ub4dor&3", ("Tr0ub4dor&3",)),
    ("docker login", "docker login -u ci -p Dk9x2mQ7pL registry.example.invalid", ("Dk9x2mQ7pL",)),
    ("mysql -p", "mysql -uroot -pRootPw77 app < dump.sql", ("RootPw77",)),
    ("curl -u", "curl -u admin:adm1nPw https://ci.example.invalid/api", ("adm1nPw",)),
    ("--token", "gh-tool deploy --token Qw3rTy7uI9oP1aS2 --env prod", ("Qw3rTy7uI9oP1aS2",)),
    ("--password=", "pgcli --password=PgPass42 mydb", ("PgPass42",)),
    ("--api-key quoted", "tool --api-key 'k9J2h7G5f3D1s8A6' run", ("k9J2h7G5f3D1s8A6",)),
    ("hex secret key", f"SECRET_KEY={HEX_KEY}", (HEX_KEY,)),
    ("hex secret key quoted", f"SECRET_KEY = '{HEX_KEY}'", (HEX_KEY,)),
    ("quoted env with spaces", 'DB_PASSWORD="correct horse battery staple"', ("correct horse battery staple",)),
    ("short env password", "DB_PASSWORD=hunter2", ("hunter2",)),
    ("python assignment", 'password = "correct horse battery staple"', ("correct horse battery staple",)),
    ("json key", '{"api_key": "a8F3kL9mQ2xZ7vB4"}', ("a8F3kL9mQ2xZ7vB4",)),
    ("yaml key", "client_secret: Zm9vYmFyYmF6cXV4MTIz", ("Zm9vYmFyYmF6cXV4MTIz",)),
    ("github token", f"GITHUB_TOKEN={GH}", (GH,)),
    ("github in url", f"https://{GH}@github.com/org/repo.git", (GH,)),
    ("openai key", f"OPENAI_API_KEY={OAI}", (OAI,)),
    ("anthropic key prose", f"here is my anthropic key {ANT}", (ANT,)),
    ("slack token", "slack: xoxb-123456789012-abcdefghijklmnopqrstuvwx", ("xoxb-123456789012-abcdefghijklmnopqrstuvwx",)),
    ("stripe live", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", ("sk_live_4eC39HqLyjWDarjtT1zdp7dc",)),
    ("google api key", "key=AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", ("AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",)),
    ("jwt", f"the session token is {JWT}", (JWT,)),
    ("token prose", "the deploy token is 7f3kQ9zL2mX8pW4r", ("7f3kQ9zL2mX8pW4r",)),
    ("sentence end", "The API key is Hq82nZ0pLk4sW9tQ. Keep it safe.", ("Hq82nZ0pLk4sW9tQ",)),
    ("sshpass", "sshpass -p 'Ssh!Pass9' ssh deploy@host", ("Ssh!Pass9",)),
    ("PGPASSWORD", "PGPASSWORD=pgpw1234 psql -h db", ("pgpw1234",)),
    ("npmrc", "//registry.npmjs.org/:_authToken=npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", ("npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",)),
    ("pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq\n-----END RSA PRIVATE KEY-----", ("MIIEpAIBAAKCAQEA7bq",)),
    ("passphrase", "the gpg passphrase was Blue-Moon-1987", ("Blue-Moon-1987",)),
    ("spanish", "la contraseña es Gato123", ("Gato123",)),
    ("x-api-key header", "X-Api-Key: 3fa9Kd81Lq0Zm2Vx", ("3fa9Kd81Lq0Zm2Vx",)),
]  # fmt: skip
"""(name, line, secret values in it)."""

FALSE_POSITIVES: list[str] = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the parser",
    "git checkout 9fceb02 && git log --oneline -3",
    "session 550e8400-e29b-41d4-a716-446655440000 resumed",
    '"id": "123e4567-e89b-12d3-a456-426614174000"',
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "content_hash = 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3'",
    '<script src="app.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" crossorigin="anonymous"></script>',
    "TEST_DATA = 'SGVsbG8sIFdvcmxkISBUaGlzIGlzIGEgdGVzdC4='",
    "echo aGVsbG8gd29ybGQ= | base64 -d",
    "the password field is required",
    "the token is expired, run login again",
    "set the password in your password manager",
    "password = os.environ['DB_PASSWORD']",
    "token = get_token()",
    "api_key: ${OPENAI_API_KEY}",
    "OPENAI_API_KEY=$OPENAI_API_KEY",
    "Authorization: Bearer $TOKEN",
    "the key is to run the migrations first",
    "use --token-file ~/.config/token instead",
    "postgres://localhost:5432/app",
    "MOCK_API_KEY names the variable the client reads",
    "the cache key is the request path",
    "docker run -p 8080:80 nginx",
    "pytest -p no:cacheprovider -k test_auth",
    "npm install --save-dev @types/node",
    "uv run pytest -q tests/core/test_review.py",
    "the secret to fast tests is fixtures",
    "see https://example.invalid/docs/auth#tokens",
    "version 1.2.3 tagged 2024-05-01T12:00:00Z",
    "image: ghcr.io/org/app@sha256:" + "0123456789abcdef" * 4,
]
"""Benign lines: each must come through redaction unchanged."""
