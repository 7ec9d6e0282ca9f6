//! The credential scan against a corpus: real credential shapes it must find
//! (every value fake, of the real shape, in a line as it shows in a command,
//! a log or a JSON record) and near-misses it must not (code that handles
//! credentials, placeholders, variables, hashes, ids, server log lines).
//! Prints recall and precision; asserts full recall, full redaction and no
//! match on a near-miss.
//!
//! Vendor prefixes are joined to their fake bodies at run time (`key`), so
//! this file holds no string a secret scanner would take for a live key.

// The figures are this test's output.
#![allow(clippy::print_stdout)]

use hindsight_core::secrets::{Secret, redact, scan};
use hindsight_core::{Source, analyze};

/// A credential in context: `text` holds `credential` (and, for a private
/// key, further `pieces` of it on other lines, which must be redacted too).
struct Shape {
    what: &'static str,
    text: String,
    credential: String,
    pieces: Vec<String>,
}

/// A vendor prefix and a fake body.
fn key(prefix: &str, body: &str) -> String {
    format!("{prefix}{body}")
}

/// `template` with its `{}` replaced by `credential`.
fn shape(what: &'static str, template: &str, credential: String) -> Shape {
    Shape {
        what,
        text: template.replacen("{}", &credential, 1),
        credential,
        pieces: Vec::new(),
    }
}

/// A PEM private key block: `header` and `footer` around `lines`, joined by
/// `newline` (a real newline in a file, `\n` in JSON), in `template`.
fn pem(what: &'static str, template: &str, kind: &str, lines: &[&str], newline: &str) -> Shape {
    let block = format!(
        "-----BEGIN {kind}-----{newline}{}{newline}-----END {kind}-----",
        lines.join(newline)
    );
    Shape {
        what,
        text: template.replacen("{}", &block, 1),
        credential: lines[0].to_owned(),
        pieces: lines[1..]
            .iter()
            .filter(|l| l.len() >= 16)
            .map(|l| (*l).to_owned())
            .collect(),
    }
}

const RSA_LINES: [&str; 6] = [
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDzYqP3dZOo0u/C",
    "Yq6pInLddeC8tBu96QALlZpICj1kxLOuTPHzmkVlurcOD4AGQwH6O/NIAoKMvmlg",
    "adeyq2k18l9WBrEl/slY3bRdnNyp7owc1ykMpODTBtF89A5Qrb8D8u6TEaLw/Cpq",
    "by6etgCHeF0NiNmkJwpnc6m0qALMUCSMO+OMB/3lXMhe2DlmfT36vkpD9nAK8Pw5",
    "HzcUiPv9OWrEsV504nwKkxTCRqu8aGi1+Y+h4jjq85mzuFgs9k1jnKFZK75nFrKr",
    "x88azmbLhxz+JgZLv2s7cGnpFBxmKY==",
];

const OPENSSH_LINES: [&str; 4] = [
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    "XEgFWY9fRIQCqeOxKF98UGBOmEhrMM0b8uOpDbTCNch2rDabhlXtqQr10R4Cg9j7/g2WMZ",
    "X4NsCnY/16mmxf1wLH+GciASEXJoSyVEPlAKsdyyieafl3Uldo1s96OLkdLSEJR1FZLzXQ",
    "JJ2li+idWGsrLsXjIyibNdvJJDOSlSIutf4AGvGaNR+iyKawzouYr7OLe/hQjv0Uq7fzWU",
];

/// Real credential shapes, fake values.
fn shapes() -> Vec<Shape> {
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1Xzg4NDEiLCJzY29wZSI6ImluZmVyZW5jZSIsImlhdCI6MTc3NTEyMTAwMCwiZXhwIjoxNzc1MTI0NjAwfQ.SS8zFz4dBMHmc_6pKvNcoitd98aBY1BD26jSxjqqIPw";
    let jwt_rs = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImstMjAyNi0wNCJ9.eyJpc3MiOiJodHRwczovL2F1dGguaW50ZXJuYWwiLCJzdWIiOiJzdmMtYmF0Y2giLCJhdWQiOiJhcGkifQ.jkxxN5wKjRqU9nu-TWz_oYzg7REAsfsFeAXXa7rVlRwQVsDZVXVL5LjBLAHtDMyX1gW4_JvOsvGIiXX23N6AIg";
    vec![
        // AWS
        shape("AWS access key id, env export", "export AWS_ACCESS_KEY_ID={}", key("AKIA", "V0OQP3CYS8VM261R")),
        shape(
            "AWS temporary access key id, sts JSON",
            r#"    "AccessKeyId": "{}","#,
            key("ASIA", "511CZP1S6FBZ3PRL"),
        ),
        shape(
            "AWS secret key, credentials file",
            "aws_secret_access_key = {}",
            "0A4d+4K6+ZeS9RUp0qGgWqT+UaTg7ozCQGMh3qsK".to_owned(),
        ),
        shape(
            "AWS secret key, env export",
            "export AWS_SECRET_ACCESS_KEY={} AWS_DEFAULT_REGION=us-east-1",
            "WNKx4VuJeCS8bkXybYvh/EP4Mk2oiRvickwmrlP7".to_owned(),
        ),
        shape(
            "AWS secret key, sts JSON",
            r#"    "SecretAccessKey": "{}","#,
            "QvL7raKB+Csrs4YKSehtArDYL4m45YqwZq5eB91G".to_owned(),
        ),
        shape(
            "AWS session token, sts JSON",
            r#"    "SessionToken": "{}","#,
            "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD6o3u0kgtq4HnNlQCQD0USIWGG7cNMrv2OQxgYah7W/2FzziRubLUUu8R8uZslADtedMFngH1JaUfFKu+ezbHCGQvh/pUl96VN+JDK2XvAJpL+VjVzbIiRPm+RMFC3qIxJLx5FHZ".to_owned(),
        ),
        // Google Cloud
        pem(
            "GCP service-account private_key, JSON",
            r#"  "private_key": "{}\n","#,
            "PRIVATE KEY",
            &RSA_LINES,
            "\\n",
        ),
        pem(
            "RSA private key printed by cat",
            "$ cat deploy/id_rsa\n{}\n$ ",
            "RSA PRIVATE KEY",
            &RSA_LINES,
            "\n",
        ),
        pem(
            "OpenSSH private key in a tool result, JSON-escaped",
            r#"{"type":"tool_result","content":"{}\n"}"#,
            "OPENSSH PRIVATE KEY",
            &OPENSSH_LINES,
            "\\n",
        ),
        shape(
            "Google API key in a URL",
            "curl -s 'https://generativelanguage.googleapis.com/v1beta/models?key={}'",
            key("AIza", "SyDlempoLkcg-eczVFzk7w6Uq4PYpPyl6cx"),
        ),
        // Azure
        shape(
            "Azure storage account key, connection string",
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=mlartifacts;AccountKey={};EndpointSuffix=core.windows.net",
            "UdcayBhcBqnX5Oa1N24SuWRAlKxcsVTriuQYxtzLK4J23FECrS/U3JPRjuuYkYhpgsu2m25sfSzNE29J60jvEA==".to_owned(),
        ),
        shape(
            "Azure OpenAI api-key header",
            "curl https://mlteam.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-06-01 -H \"api-key: {}\" -d @req.json",
            "a903149c69706bf2e60cfc8582e7d61e".to_owned(),
        ),
        shape(
            "Azure OpenAI key, .env line",
            "AZURE_OPENAI_API_KEY={}",
            "44ba3de877d2846511753ba8e6edc704".to_owned(),
        ),
        shape(
            "Azure API Management subscription key header",
            "-H 'Ocp-Apim-Subscription-Key: {}'",
            "e110072d2313a0bf1b64a378418df80c".to_owned(),
        ),
        shape(
            "Azure client secret, env export",
            "export AZURE_CLIENT_SECRET=\"{}\"",
            "bIn8Q~OqSzXp94UpFyrtfjrGYF.3A87MLXCAN9Rt".to_owned(),
        ),
        // OpenAI
        shape(
            "OpenAI key, env export",
            "export OPENAI_API_KEY={}",
            key("sk-", "2ykTZXVoQfidIY7VI0P28JXdboIZ7NiLoIxmukkVVNTEp5gm"),
        ),
        shape(
            "OpenAI project key in Python",
            "client = OpenAI(api_key=\"{}\")",
            key("sk-proj-", "f6G-jqKUDwQeiKKFGruEyeDrhUj_VbQaG_CG6DBhN3q1Ch_WsFYPzK5ZZakT1-hKfjohbKxssyVbGiZAnAyiNjIie04J6Wgk77xzrTSGgqPdTSVx3DDBIjKdU7KWupqJEvmoMzCOwoVmYXwLUckzMf1-Roq7"),
        ),
        shape(
            "OpenAI key in a JSON config",
            r#"{"provider": "openai", "openai_api_key": "{}", "model": "gpt-4o"}"#,
            key("sk-", "2FaZa4OwO1e7axoUUjgrNWCZTbF0gk1nFOISZCrbksBQNBYb"),
        ),
        shape(
            "OpenAI key, docker -e",
            "docker run -d -e OPENAI_API_KEY={} -p 3000:8080 ghcr.io/open-webui/open-webui:main",
            key("sk-proj-", "Qm3vT8xLp2Rz7KdW9sYhN4cJ6fGbE1aU5oXiV0tMqHwZyA3eR8uL2kP7nD4gS9jF"),
        ),
        // Anthropic
        shape(
            "Anthropic key, x-api-key header",
            "curl https://api.anthropic.com/v1/messages -H \"x-api-key: {}\" -H \"anthropic-version: 2023-06-01\"",
            key("sk-ant-", "api03-DCoUZMv0Zf3w6uQ5xwjaKWsUpaj1qUW9e4WmMuemFQH_bhTnsCdp7-EWmMhqQ4d0lJ7ooPrbXXZavjQm-4l9uc6k95j-qAA"),
        ),
        shape(
            "Anthropic key, .env line",
            "ANTHROPIC_API_KEY={}",
            key("sk-ant-", "api03-YyqngEtAIW9DamMjhtbo_pMAEEesgQAsYTKzMtOdJRCy8uDZh6ReetZ0aVdmpjm3EaF2bgVpemvhKL7GZGerbDEmxEciZAA"),
        ),
        // Hugging Face
        shape(
            "Hugging Face token, login --token",
            "huggingface-cli login --token {} --add-to-git-credential",
            key("hf_", "RufooTAqPhWeCWFWntmGsiNEScSxExPFmP"),
        ),
        shape(
            "Hugging Face token, docker -e",
            "docker run --runtime nvidia --gpus all -e HF_TOKEN={} -p 8000:8000 vllm/vllm-openai:latest --model meta-llama/Llama-3.1-8B-Instruct",
            key("hf_", "lKkdnNtcQeFsbGWEibemMYRpmEsnORzwAv"),
        ),
        shape(
            "Hugging Face token, --hf-token flag",
            "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4 --hf-token {}",
            key("hf_", "tvNXLujIVFjppUKQFxOXRnJGHZkEtFGEaq"),
        ),
        shape(
            "Hugging Face token, docker -e HUGGING_FACE_HUB_TOKEN",
            "docker run --gpus all --shm-size 1g -e HUGGING_FACE_HUB_TOKEN={} ghcr.io/huggingface/text-generation-inference:2.4 --model-id google/gemma-2-9b-it",
            key("hf_", "qsHZNqOaOJHBuhQmyhboicBccdujvkSLia"),
        ),
        // GitHub
        shape(
            "GitHub classic token in a remote URL",
            "git remote set-url origin https://{}@github.com/acme/serving.git",
            key("ghp_", "b4efrtaGajXB8qcctem4NyhKm1Ndu6Jcfv6q"),
        ),
        shape(
            "GitHub classic token, Authorization: token",
            "curl -H \"Authorization: token {}\" https://api.github.com/user",
            key("ghp_", "cWV7erdeBHlYDxiHXdS4phxTFPWWoDip2JKy"),
        ),
        shape(
            "GitHub fine-grained token, env export",
            "export GITHUB_TOKEN={}",
            key("github_pat_", "11C8RTWW4SCGQ02LSZC40Q_WBWqdETsCaeRGqQtkXJKH7vNIOe1vgQGckqNAmPvONmDCWvPsVHAhry6nBF"),
        ),
        shape(
            "GitHub OAuth token, gh auth status --show-token",
            "  - Token: {}",
            key("gho_", "Jl04Zzp1LI6G45vqcN8CBvV9A0WUSEmPLiVw"),
        ),
        // GitLab
        shape(
            "GitLab token in a clone URL",
            "git clone https://oauth2:{}@gitlab.com/acme/inference.git",
            key("glpat-", "JEIEb--FtwaGP0i1MfN9"),
        ),
        // Slack
        shape(
            "Slack bot token, env line",
            "SLACK_BOT_TOKEN={}",
            key("xoxb-", "207227747616-5025099711777-ZBeDP3QIe36X5CGKDaOniaqA"),
        ),
        shape(
            "Slack user token, JSON",
            r#"{"ok": true, "access_token": "{}", "scope": "chat:write"}"#,
            key("xoxp-", "089366161222-943570819539-0572595701461-c57326465add6f50324eab2f3d30a274"),
        ),
        shape(
            "Slack webhook URL",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"eval done\"}' https://hooks.slack.com/services/{}",
            "TAPAM6A3V/B3G1XQEJBDI/3FzGD1yzMxG4t2yPv7CeM6tN".to_owned(),
        ),
        // Stripe
        shape(
            "Stripe live secret key in Python",
            "stripe.api_key = \"{}\"",
            key("sk_live_", "7QhsNhIaaJd1nbJYNQ9UIHB2"),
        ),
        shape(
            "Stripe restricted key, curl -u",
            "curl https://api.stripe.com/v1/charges -u {}:",
            key("rk_live_", "tc2HEj6h339uBbBss86YoJEs"),
        ),
        shape(
            "Stripe test secret key, .env line",
            "STRIPE_SECRET_KEY={}",
            key("sk_test_", "pPVOuRZ2JG3YLp77XiZ22uxWJRYuti28hb4tU1LzalPhHObWO0DBFhvFcDEroL9NKFx1IL5EpSrbQuAaVy9sc2xlBeabbx7hudi"),
        ),
        // JSON Web Tokens
        shape(
            "JWT in an Authorization header",
            "curl -s http://10.0.0.5:8000/v1/models -H 'Authorization: Bearer {}'",
            jwt.to_owned(),
        ),
        shape(
            "JWT in a login response",
            r#"{"access_token":"{}","token_type":"bearer","expires_in":3600}"#,
            jwt_rs.to_owned(),
        ),
        // Passwords in URLs
        shape(
            "password in a Postgres URL, .env line",
            "DATABASE_URL=postgres://app_user:{}@db.internal:5432/appdb",
            "DZgddaAVGjz1".to_owned(),
        ),
        shape(
            "password in a MongoDB SRV URL",
            "mongosh \"mongodb+srv://admin:{}@cluster0.ab12c.mongodb.net/prod?retryWrites=true\"",
            "9uSXGnvKlGnT".to_owned(),
        ),
        shape(
            "password in a Redis URL, no user",
            "REDIS_URL=redis://:{}@10.0.0.12:6379/0",
            "bNDbTjyx6kzU".to_owned(),
        ),
        shape(
            "password with symbols in a MySQL URL",
            "sqlalchemy.url = mysql+pymysql://root:{}@127.0.0.1:3306/shop",
            "R00t!8Pj6GtS2".to_owned(),
        ),
        shape(
            "PyPI token as a URL password",
            "pip install --index-url https://__token__:{}@pypi.internal.acme.dev/simple/ acme-infer",
            "pypi-AgEIcHlwaS5vcmcrlQDE0Ovl8nXNDPnpFldW3Wqhc6LWe7mQZ-EePXh8sPKGYbs0qsrLBWgJml2".to_owned(),
        ),
        // Bearer headers, flags, exports, .env, docker
        shape(
            "opaque bearer token, curl header",
            "curl http://127.0.0.1:30000/v1/chat/completions -H \"Authorization: Bearer {}\" -d @body.json",
            "ivDIwBpmMJD1mw3fPLvGn2LBha1WTv5GSvt_9bRF".to_owned(),
        ),
        shape(
            "bearer token in a JSON headers object",
            r#"{"headers": {"Authorization": "Bearer {}", "Content-Type": "application/json"}}"#,
            "KI+znwxT6566wP8sYV0UJdMJqZJltGQV".to_owned(),
        ),
        shape(
            "vLLM --api-key flag",
            "nohup vllm serve /models/gemma-3-27b-it --port 8100 --api-key {} > vllm.log 2>&1 &",
            "vk-prod-7f3a9c2e5b8d41f6".to_owned(),
        ),
        shape(
            "LMDeploy --api-keys flag, in a shell's job report",
            "/root/start.sh: line 11:     7 Aborted                 (core dumped) lmdeploy serve api_server /m --server-port 8000 --api-keys {} --tp 4",
            "lmd_8f2c41a97be03d5e".to_owned(),
        ),
        shape(
            "SGLang --api-key flag",
            "python -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp 4 --api-key {} --port 30000",
            "d9d67a9f17795a3413ef64db5bf2f2a66e7fb9c3d0d13cf4".to_owned(),
        ),
        shape(
            "--api-key=value flag",
            "text-generation-launcher --model-id /data/llama --api-key={}",
            "E3X4uqTIPsca91".to_owned(),
        ),
        shape(
            "custom API key, env export",
            "export X_API_KEY={}",
            "ifVawgEMS4DG7rT2".to_owned(),
        ),
        shape(
            "Django secret key, .env line",
            "SECRET_KEY={}",
            "dd94f527410344a281ce06f70e6a4522919f19e556d15f996e".to_owned(),
        ),
        shape(
            "database password, quoted .env line",
            "DB_PASSWORD=\"{}\"",
            "Tr0ub4dor&3xK".to_owned(),
        ),
        shape(
            "password option, mysql client",
            "mysql -h 127.0.0.1 -u root --password=S3cr3tP4ssw0rd shop < dump.sql",
            "S3cr3tP4ssw0rd".to_owned(),
        ),
        shape(
            "password in a Python dict printed to a log",
            "2026-04-02 09:12:01,884 INFO settings loaded: {'user': 'svc', 'password': '{}', 'host': 'db'}",
            "8Pj6GtS2wmhN".to_owned(),
        ),
        shape(
            "token in a YAML config",
            "  token: {}",
            "499b722f1f2faf562b76142f".to_owned(),
        ),
        shape(
            "kubectl secret from a literal",
            "kubectl create secret generic hf --from-literal=token={}",
            key("hf_", "lKkdnNtcQeFsbGWEibemMYRpmEsnORzwAq"),
        ),
        shape(
            "npm registry auth token, .npmrc",
            "//registry.npmjs.org/:_authToken={}",
            key("npm_", "MkUEesQWWaJvnQ1JpmTpNkVFAHg8d5xKwxua"),
        ),
        shape(
            "a short vLLM --api-key, in its non-default args dump",
            "(APIServer pid=1) INFO 05-02 10:01:02 [utils.py:300] non-default args: {'host': '0.0.0.0', 'port': 15004, 'api_key': ['{}'], 'model': 'deepseek-ai/DeepSeek-V4-Flash'}",
            "xk42pq".to_owned(),
        ),
        shape(
            "a short --api-key flag",
            "vllm serve Qwen/Qwen3-8B --port 8001 --api-key {}",
            "s3cr7t".to_owned(),
        ),
        shape(
            "password in JSON inside a JSON string (escaped quotes)",
            r#"{"arguments":"{\"command\":\"psql\",\"env\":{\"PGPASSWORD\":\"{}\"}}"}"#,
            "Lz7pQ3vN8wRt".to_owned(),
        ),
    ]
}

/// Text that must not match: code handling credentials, placeholders,
/// variables, and everyday text with the same characters.
fn near_misses() -> Vec<&'static str> {
    vec![
        // Code: calls, attributes, subscripts, variables, type annotations.
        "        token = self._issue_auth_token(user_id, scope=scope, ttl=self.ttl)",
        "    api_key = config.openai_api_key",
        "    token = request.headers.get(\"Authorization\", \"\").removeprefix(\"Bearer \")",
        "    password = os.environ[\"DB_PASSWORD\"]",
        "    client = OpenAI(api_key=os.getenv(\"OPENAI_API_KEY\"))",
        "    token = os.getenv(\"HF_TOKEN\")",
        "    password = getpass.getpass(\"Password: \")",
        "    conn = psycopg.connect(host=host, password=getpass())",
        "    def __init__(self, api_key: str, timeout: float = 30.0) -> None:",
        "    api_key: Optional[str] = None",
        // Short values outside an option are no key; `EMPTY` is vLLM's
        // placeholder key.
        "    token: abc123",
        "vllm serve Qwen/Qwen3-8B --api-key EMPTY --port 8001",
        // A hyphenated word is no option: `-token prompt` here is prose.
        "prefill:    210 tok/s   (a 3.4k-token prompt takes 16s just to read)",
        "    password: SecretStr = Field(..., min_length=12)",
        "async def read_me(auth_token: Annotated[str, Depends(oauth2_scheme)]):",
        "    client_secret = settings.OAUTH_CLIENT_SECRET",
        "    access_token = response.json()[\"access_token\"]",
        "    token = jwt.encode(payload, SECRET_KEY, algorithm=\"HS256\")",
        "    secret = hashlib.sha256(raw).hexdigest()",
        "    token = secrets.token_urlsafe(32)",
        "    api_key = api_key or os.environ.get(\"ANTHROPIC_API_KEY\")",
        "        self.token = token",
        "    token = tokens[0]",
        "    password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
        "    secret_key: bytes = settings.SECRET_KEY",
        "    token: TokenPayload = Depends(get_current_token)",
        "        api_key=settings.anthropic_api_key.get_secret_value(),",
        "    return {\"access_token\": access_token, \"token_type\": \"bearer\"}",
        "    password=None,",
        "const apiKey = process.env.OPENAI_API_KEY;",
        "  const token = await getToken({ req, secret: process.env.NEXTAUTH_SECRET });",
        "    String apiKey = System.getenv(\"API_KEY\");",
        "    string secret = _configuration[\"Jwt:Secret\"];",
        "  password = var.db_password",
        "    'password' => env('DB_PASSWORD'),",
        "      password: *db_password",
        "    token: ENV.fetch(\"GITHUB_TOKEN\")",
        "    let token = env::var(\"HF_TOKEN\")?;",
        "TOKEN=$(gcloud auth print-access-token)",
        "\ttoken := os.Getenv(\"GITHUB_TOKEN\")",
        // Placeholders and variables.
        "export HF_TOKEN=<your-token>",
        "HF_TOKEN=xxx",
        "export OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "docker run --gpus all -e HF_TOKEN=${HF_TOKEN} -p 8000:8000 vllm/vllm-openai:latest",
        "docker run --gpus all -e HF_TOKEN -e HUGGING_FACE_HUB_TOKEN=$HF_TOKEN ghcr.io/huggingface/text-generation-inference:2.4",
        "vllm serve Qwen/Qwen3-8B --api-key $OPENAI_API_KEY",
        "vllm serve Qwen/Qwen3-8B --hf-token \"$HF_TOKEN\" --port 8000",
        "password: changeme",
        "OPENAI_API_KEY=sk-...",
        "  api_key: \"...\"",
        "  password: \"{{ vault_db_password }}\"",
        "      GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
        "set API_KEY=%API_KEY%",
        "export OPENAI_API_KEY=\"$(cat ~/.config/openai/key)\"",
        "ANTHROPIC_API_KEY=YOUR_API_KEY_HERE",
        "curl http://localhost:8000/v1/models -H \"Authorization: Bearer $TOKEN\"",
        "curl http://localhost:8000/v1/models -H 'Authorization: Bearer <token>'",
        "curl http://localhost:8000/v1/models -H \"Authorization: Bearer ${VLLM_API_KEY}\"",
        "    headers = {\"Authorization\": f\"Bearer {token}\"}",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "DATABASE_URL=postgres://user:password@localhost:5432/db",
        "DATABASE_URL=postgres://${DB_USER}:${DB_PASSWORD}@db:5432/app",
        "DATABASE_URL=postgres://postgres:$PGPASSWORD@db:5432/app",
        "-----BEGIN PRIVATE KEY-----\\n...\\n-----END PRIVATE KEY-----",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----",
        "password=********",
        "token=[REDACTED]",
        // Everyday text with the same characters.
        r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","url":"https://www.acme-widgets.com","name":"Acme","logo":{"@type":"ImageObject","url":"https://www.acme-widgets.com/logo.png"}}</script>"#,
        r#"{"@type":"NewsArticle","url":"https://news.example.org/a/123","publisher":{"@type":"Organization","name":"News","logo":{"@type":"ImageObject","url":"https://news.example.org/logo.png"}}}"#,
        "git clone git@github.com:acme/serving.git",
        "ssh -i ~/.ssh/id_ed25519 ubuntu@10.0.0.12 'nvidia-smi'",
        "Author: Jane Doe <jane.doe@acme-widgets.com>",
        "see https://medium.com/@jdoe/serving-llms-at-scale-1a2b3c4d5e6f",
        "<link href=\"https://cdn.jsdelivr.net/npm/@fontsource/inter@5.0.8/index.css\" rel=\"stylesheet\">",
        "https://x.internal:8443/@scope/pkg/-/pkg-1.2.3.tgz",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "Digest: sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "request_id=550e8400-e29b-41d4-a716-446655440000 status=200",
        "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==\">",
        "data:application/json;base64,eyJuYW1lIjoid2lkZ2V0IiwicHJpY2UiOjEyfQ==",
        "token_count=1234 prompt_tokens=812 completion_tokens=422",
        "{\"usage\": {\"prompt_tokens\": 812, \"completion_tokens\": 422, \"total_tokens\": 1234}, \"max_tokens\": 4096}",
        "[2026-04-02 09:12:01 TP0] Prefill batch. #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.12, #running-req: 0, #queue-req: 0",
        "[2026-04-02 09:12:02 TP0] Decode batch. #running-req: 3, #token: 20480, token usage: 0.45, gen throughput (token/s): 812.37, #queue-req: 0",
        "INFO 04-02 09:12:03 [loggers.py:123] Engine 000: Avg prompt throughput: 1543.2 tokens/s, Avg generation throughput: 87.4 tokens/s, Running: 3 reqs",
        "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --max-total-tokens 65536 --max-prefill-tokens 16384",
        "vllm serve Qwen/Qwen3-8B --tokenizer Qwen/Qwen3-8B --max-num-batched-tokens 8192",
        "The token scheduler reserves 8192 tokens per batch; the secret sauce is paging.",
        "server_args=ServerArgs(api_key=None, tokenizer_path='/models/qwen', max_total_num_tokens=56524)",
        "  \"token_type\": \"bearer\",",
        "STRIPE_PUBLISHABLE_KEY=pk_live_51HqLyjWDarjtT1zdp7dcXYZabc",
        r#"{"items": [], "nextPageToken": "CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA3EgoIBhCA8tLNBhgB"}"#,
        r#"{"Reservations": [], "NextToken": "eyJ2IjoiMSIsImMiOiJ4V0JFUEpzN3Z3PT0ifQ=="}"#,
        "<input type=\"password\" name=\"password\" autocomplete=\"current-password\">",
        "  \"eos_token\": \"<|im_end|>\", \"pad_token\": \"<|endoftext|>\",",
        "docker login -u ci-bot --password-stdin registry.acme.dev < token.txt",
        "INFO:     127.0.0.1:55874 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
        "from huggingface_hub import hf_hub_download, snapshot_download",
        "pip install torch==2.4.0+cu121 --index-url https://download.pytorch.org/whl/cu121",
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----",
    ]
}

/// Whether `secret` is the credential of `shape` or one of its pieces.
fn is_true(secret: &Secret, shape: &Shape) -> bool {
    secret.value == shape.credential || shape.pieces.contains(&secret.value)
}

#[test]
fn credential_corpus() {
    let shapes = shapes();
    let near_misses = near_misses();
    let mut found_shapes = 0;
    let (mut true_positives, mut false_positives) = (0, 0);
    let mut problems: Vec<String> = Vec::new();
    for shape in &shapes {
        let source = Source::new("shape.txt", shape.text.as_str());
        let secrets = scan(&[&source]);
        let (right, wrong): (Vec<&Secret>, Vec<&Secret>) =
            secrets.iter().partition(|s| is_true(s, shape));
        true_positives += right.len();
        false_positives += wrong.len();
        for secret in &wrong {
            problems.push(format!(
                "{}: found {:?} ({}), not the credential",
                shape.what, secret.value, secret.kind
            ));
        }
        if !right.iter().any(|s| s.value == shape.credential) {
            problems.push(format!("{}: missed in {:?}", shape.what, shape.text));
            continue;
        }
        found_shapes += 1;
        // Redacted wherever the report quotes, and in the text itself.
        let redacted = redact(&shape.text, &secrets);
        let report =
            serde_json::to_string(&analyze(std::slice::from_ref(&source))).unwrap_or_default();
        for piece in std::iter::once(&shape.credential).chain(&shape.pieces) {
            if redacted.contains(piece.as_str()) || report.contains(piece.as_str()) {
                problems.push(format!("{}: {piece:?} is not redacted", shape.what));
            }
        }
        let findings = report.matches("\"rule\":\"secret-exposed\"").count();
        if findings != 1 {
            problems.push(format!(
                "{}: {findings} secret-exposed findings",
                shape.what
            ));
        }
    }
    for text in &near_misses {
        for secret in scan(&[&Source::new("near-miss.txt", *text)]) {
            false_positives += 1;
            problems.push(format!(
                "near-miss matched: {:?} ({}) in {text:?}",
                secret.value, secret.kind
            ));
        }
    }
    let recall = 100.0 * found_shapes as f64 / shapes.len() as f64;
    let precision =
        100.0 * true_positives as f64 / (true_positives + false_positives).max(1) as f64;
    let pieces: usize = shapes.iter().map(|s| s.pieces.len()).sum();
    println!(
        "credential corpus: {} shapes, {} near-misses; recall {recall:.1}% ({found_shapes}/{}), \
         precision {precision:.1}% ({true_positives} of {} found are credentials or, {pieces} \
         of them, further lines of a private key)",
        shapes.len(),
        near_misses.len(),
        shapes.len(),
        true_positives + false_positives,
    );
    for problem in &problems {
        println!("  {problem}");
    }
    assert!(shapes.len() >= 40 && near_misses.len() >= 40);
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// A report cuts a long line to 2,000 bytes for its evidence; a credential
/// across the cut is redacted whole, not left with its head shown.
#[test]
fn a_credential_across_a_cut_line_is_redacted() {
    let token = key("hf_", "RufooTAqPhWeCWFWntmGsiNEScSxExPFmP");
    let prefix = "export HF_TOKEN=";
    for before in 1_960..2_000 {
        let text = format!(
            "{}{prefix}{token} && vllm serve m",
            " ".repeat(before - prefix.len())
        );
        let report =
            serde_json::to_string(&analyze(&[Source::new("cut.txt", text)])).unwrap_or_default();
        assert!(report.contains("secret-exposed"), "{before}");
        assert!(!report.contains(&token[..8]), "{before}: {report}");
    }
}
