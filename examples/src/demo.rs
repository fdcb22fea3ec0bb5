//! The demo app: one page and a small JSON API, framework-free (each demo routes to these).

/// The demo page: a form, buttons, a list, a fetch to a route that fails on purpose, console output.
pub const PAGE: &str = r##"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>browser-agent demo</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
  form, section { border: 1px solid #ddd; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
  label { display: block; margin: .5rem 0 .2rem; }
  button { margin: .25rem .25rem .25rem 0; }
  #status { color: #555; }
</style>
<script>console.info("demo: inline head script ran before the page body");</script>
</head>
<body>
<header><h1>browser-agent demo</h1></header>
<main>
  <form id="signup">
    <h2>Sign up</h2>
    <label for="email">Email</label>
    <input id="email" name="email" type="email" placeholder="ada@example.com" required>
    <label for="plan">Plan</label>
    <select id="plan" name="plan"><option>Free</option><option>Pro</option><option>Team</option></select>
    <label><input type="checkbox" id="terms" name="terms"> I accept the terms</label>
    <button type="submit">Create account</button>
  </form>
  <section>
    <h2>Items</h2>
    <input id="new-item" aria-label="New item" placeholder="Add an item">
    <button id="add">Add</button>
    <ul id="items"></ul>
  </section>
  <section>
    <h2>Things that go wrong</h2>
    <button id="fail">Load broken API</button>
    <button id="throw">Throw an error</button>
    <button id="reject">Reject a promise</button>
    <button id="warn">Log a warning</button>
    <p id="status" role="status">Ready.</p>
  </section>
</main>
<script>
  const status = (t) => { document.getElementById("status").textContent = t; };
  const list = document.getElementById("items");
  const render = (items) => { list.replaceChildren(...items.map((i) => Object.assign(document.createElement("li"), { textContent: i }))); };
  fetch("/api/items").then((r) => r.json()).then((items) => { render(items); console.log("demo: loaded", items.length, "items"); });
  document.getElementById("add").addEventListener("click", async () => {
    const input = document.getElementById("new-item");
    if (!input.value.trim()) { console.warn("demo: empty item ignored"); return; }
    const r = await fetch("/api/items", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: input.value }) });
    const items = await r.json();
    render(items);
    input.value = "";
    status("Added.");
  });
  document.getElementById("fail").addEventListener("click", async () => {
    const r = await fetch("/api/fail");
    status("Broken API answered " + r.status);
    console.error("demo: /api/fail answered", r.status);
  });
  document.getElementById("throw").addEventListener("click", () => { throw new TypeError("demo: thrown on purpose"); });
  document.getElementById("reject").addEventListener("click", () => { Promise.reject(new Error("demo: rejected on purpose")); });
  document.getElementById("warn").addEventListener("click", () => console.warn("demo: a warning", { at: Date.now() }));
  document.getElementById("signup").addEventListener("submit", (e) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(e.target));
    console.log("demo: signup", data);
    status("Signed up " + (data.email || "nobody") + " on " + data.plan + ".");
  });
</script>
</body>
</html>
"##;

/// Items the list starts with.
pub const ITEMS: [&str; 3] = ["Write the README", "Ship the layer", "Try the agent"];

/// The answer of `GET /api/fail`, a 500 on purpose, so the agent has a failed request to find.
pub const FAIL: &str = r#"{"error":"this route fails on purpose"}"#;

/// `GET /api/items`: the list as JSON.
pub fn items() -> String {
    serde_json::to_string(&ITEMS).expect("static list")
}

/// `POST /api/items` with `{"name": "…"}`: the list with the new item appended (the demo keeps no
/// state), or the JSON error of a 400.
///
/// ```
/// use browser_agent_examples::demo::add_item;
/// assert_eq!(add_item(br#"{"name":"x"}"#).unwrap(), r#"["Write the README","Ship the layer","Try the agent","x"]"#);
/// assert!(add_item(b"{}").unwrap_err().contains("non-empty string"));
/// ```
pub fn add_item(body: &[u8]) -> Result<String, String> {
    let name = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("name").and_then(|n| n.as_str()).map(str::to_owned));
    match name {
        Some(name) if !name.trim().is_empty() => {
            let mut items: Vec<String> = ITEMS.iter().map(|s| s.to_string()).collect();
            items.push(name);
            Ok(serde_json::to_string(&items).expect("strings"))
        }
        _ => Err(r#"{"error":"body must be {\"name\": \"a non-empty string\"}"}"#.to_owned()),
    }
}

/// The 404 page for `path`.
pub fn not_found(path: &str) -> String {
    let path = path.replace('&', "&amp;").replace('<', "&lt;");
    format!("<!doctype html><html><head><title>Not found</title></head><body><h1>Not found</h1><p>{path}</p><a href=\"/\">Home</a></body></html>")
}
