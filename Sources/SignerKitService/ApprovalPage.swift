import SignerKitHTTPServer

/// The approval page: `GET /approvals` (HTML), `/approvals/app.js` and `/approvals/app.css`, served by the
/// service itself, so the page, its script and the JSON-RPC endpoint it calls share one origin. It lists the
/// requests held for the approver's groups with their clear-signing previews and approves or rejects them
/// through `signerkit_heldRequests`, `signerkit_approve` and `signerkit_reject` on `POST /`.
///
/// Security: the approver pastes its bearer token, which the script keeps in a variable of its own (never in
/// storage, a cookie or a URL) and sends as `Authorization: Bearer` with `fetch`. The service sets no cookie
/// and accepts no other credential, so a page of another site has nothing ambient to ride on: a request it
/// makes to `POST /` carries no token and gets `401` (CSRF-safe by construction). The assets are static and
/// hold nothing secret. No inline script or style exists, so the Content-Security-Policy allows only this
/// origin's script, style and connections, no framing, no form posts, no `<base>`; the script writes what the
/// service returns with `textContent` only, and an approval names the digest of the request it showed, so
/// the service refuses it when the request is not the one shown.
enum ApprovalPage {
    /// The policy of every page response.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

    /// The answer to `method` on `path` when `path` is one of the page's (`405` for any method but `GET`);
    /// `nil` for every other path.
    static func response(for path: Substring, method: String) -> HTTPServerResponse? {
        let asset: (type: String, text: String)
        switch path {
        case "/approvals": asset = ("text/html; charset=utf-8", html)
        case "/approvals/app.js": asset = ("text/javascript; charset=utf-8", script)
        case "/approvals/app.css": asset = ("text/css; charset=utf-8", style)
        default: return nil
        }
        guard method == "GET" else {
            return HTTPServerResponse(status: 405, headers: [("Allow", "GET")] + securityHeaders)
        }
        return HTTPServerResponse(
            status: 200, headers: [("Content-Type", asset.type)] + securityHeaders, body: Array(asset.text.utf8))
    }

    /// The headers of every page response: the policy, no type sniffing, no referrer, no caching, no framing.
    static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"), ("Cache-Control", "no-store"), ("X-Frame-Options", "DENY"),
    ]

    /// The page: a login form, where errors and notices appear, and the list the script fills.
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>SignerKit approvals</title>
        <link rel="stylesheet" href="/approvals/app.css">
        <script src="/approvals/app.js" defer></script>
        </head>
        <body>
        <header>
          <h1>SignerKit approvals</h1>
          <button id="logout" type="button" hidden>Log out</button>
        </header>
        <main>
          <form id="login" autocomplete="off">
            <label for="token">Approver token</label>
            <div class="row">
              <input id="token" type="password" autocomplete="off" spellcheck="false" required>
              <button type="submit" disabled>Log in</button>
            </div>
            <p class="hint">The token stays in this tab's memory only: nothing is stored and no cookie is set.
            Reloading or closing the tab logs out.</p>
          </form>
          <p id="error" class="error" role="alert" hidden></p>
          <p id="load-error" class="error" role="alert" hidden></p>
          <p id="notice" class="notice" role="status" hidden></p>
          <section id="requests" hidden>
            <h2>Held requests <span id="count"></span></h2>
            <p id="empty" hidden>No request is waiting for your groups.</p>
            <ol id="list"></ol>
          </section>
        </main>
        </body>
        </html>
        """#

    /// The style sheet.
    static let style = #"""
        [hidden] { display: none !important; }
        body { font: 15px/1.45 system-ui, sans-serif; color: #1d2330; background: #f3f4f7; margin: 0; }
        header { display: flex; align-items: center; justify-content: space-between; padding: .75rem 1.5rem;
          background: #1d2330; color: #fff; }
        h1 { font-size: 1.2rem; margin: 0; }
        h2 { font-size: 1.1rem; }
        main { max-width: 56rem; margin: 1.5rem auto; padding: 0 1rem; }
        form#login { background: #fff; padding: 1.25rem; border-radius: 8px; box-shadow: 0 1px 3px #0002; }
        label { font-weight: 600; display: block; margin-bottom: .4rem; }
        .row { display: flex; gap: .5rem; }
        input { font: inherit; padding: .45rem .6rem; border: 1px solid #aab; border-radius: 5px; flex: 1; }
        button { font: inherit; padding: .45rem 1rem; border-radius: 5px; border: 1px solid #667; background: #fff;
          cursor: pointer; }
        button:disabled { opacity: .5; cursor: default; }
        button.approve, form#login button { background: #17663a; border-color: #17663a; color: #fff; }
        button.reject, button.confirm-reject { background: #a3261c; border-color: #a3261c; color: #fff; }
        .hint { color: #556; font-size: .9rem; margin-bottom: 0; }
        .error, .notice { padding: .6rem .9rem; border-radius: 6px; }
        .error { background: #fde8e6; border: 1px solid #a3261c; color: #7a1a12; }
        .notice { background: #e6f4ea; border: 1px solid #17663a; color: #0f4527; }
        ol#list { list-style: none; padding: 0; }
        li.request { background: #fff; border-radius: 8px; box-shadow: 0 1px 3px #0002; padding: 1rem 1.25rem;
          margin-bottom: 1rem; }
        li.request h3 { margin: 0 0 .5rem; font-size: 1.05rem; }
        dl { display: grid; grid-template-columns: 9rem 1fr; gap: .2rem .75rem; margin: .5rem 0; }
        dt { color: #556; }
        dd { margin: 0; overflow-wrap: anywhere; font-variant-numeric: tabular-nums; }
        .preview { border-top: 1px solid #dde; margin-top: .75rem; padding-top: .5rem; }
        .preview .preview { margin-left: 1.5rem; }
        ul.warnings { list-style: none; padding: .5rem .8rem; margin: .5rem 0; background: #fff4d6;
          border: 2px solid #c77700; border-radius: 6px; color: #5c3700; font-weight: 600; }
        .actions { display: flex; gap: .5rem; margin-top: .75rem; flex-wrap: wrap; }
        """#

    /// The script (plain JavaScript, no dependencies).
    static let script = #"""
        // The SignerKit approval page: lists the requests held for the approver's groups with what each would
        // sign, approves them (bound to the digest shown) or rejects them (with a reason).
        //
        // The bearer token lives only in the variable `token` below: never in storage, a cookie or a URL, so
        // reloading or closing the tab forgets it, and a page of another site has no credential to ride on.
        // Text from the service is put in the page with textContent only, never parsed as HTML.
        'use strict';
        (() => {
          let token = null;
          let shown = '';     // the list last drawn (JSON text): an unchanged list is not redrawn
          let busy = false;   // an action in flight or a reason being written: the timer leaves the list alone
          let loads = 0;      // the latest load: an older answer arriving late is dropped
          let timer = null;
          const $ = (id) => document.getElementById(id);
          const WARNINGS = {
            'unlimited-amount': 'Unlimited amount: an unlimited allowance or transfer',
            'far-deadline': 'Far deadline: valid for more than a year',
            'unrecognized': 'Unrecognized: what this action does could not be decoded',
            'owner-mismatch': 'Owner mismatch: the message names an owner other than the signing account',
            'expired': 'Expired: a deadline that has already passed',
            'no-expiry': 'No expiry: a sponsored transaction that never expires',
          };

          function el(tag, className, text) {
            const node = document.createElement(tag);
            if (className) node.className = className;
            if (text !== undefined) node.textContent = String(text);
            return node;
          }
          function show(id, text) {
            $(id).textContent = text || '';
            $(id).hidden = !text;
          }
          // `2030-03-17T17:56:40Z` → `2030-03-17 17:56:40 UTC`.
          const utc = (text) => String(text).replace('T', ' ').replace(/Z$/, ' UTC');
          // Base units with a decimal point `decimals` digits from the right.
          function units(digits, decimals) {
            const padded = String(digits).padStart(decimals + 1, '0');
            return padded.slice(0, -decimals) + '.' + padded.slice(-decimals);
          }

          async function rpc(method, params) {
            const response = await fetch('/', {
              method: 'POST', credentials: 'omit', cache: 'no-store', redirect: 'error',
              headers: { 'Authorization': 'Bearer ' + token, 'Content-Type': 'application/json' },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: method, params: params }),
            });
            if (response.status === 401) {
              logout();
              throw new Error('the service refused the token (HTTP 401); log in again');
            }
            if (!response.ok) throw new Error('the service answered HTTP ' + response.status);
            const answer = await response.json();
            if (answer.error) throw new Error(answer.error.message + ' (' + answer.error.code + ')');
            return answer.result;
          }

          function tokensOf(p) {
            if (p.tokens) return p.tokens;
            return p.token ? [{ token: p.token, amount: p.amount, amountFormatted: p.amountFormatted }] : [];
          }

          function renderPreview(p) {
            const box = el('div', 'preview');
            if (p.warnings && p.warnings.length) {
              const list = el('ul', 'warnings');
              for (const code of p.warnings) list.append(el('li', null, '⚠ ' + (WARNINGS[code] || code)));
              box.append(list);
            }
            const rows = el('dl');
            const row = (label, value) => {
              if (value === undefined || value === null || value === '') return;
              rows.append(el('dt', null, label), el('dd', null, value));
            };
            row('Action', p.kind + (p.intent ? ': ' + p.intent : ''));
            row('Chain', p.chainName ? p.chainName + ' (' + p.chainId + ')' : p.chainId);
            row('Method', p.method);
            row('Account', p.account);
            for (const t of tokensOf(p)) {
              row('Amount', t.amountFormatted || t.amount + ' (base units) of token ' + t.token);
            }
            if (p.value) row('Native value', units(p.value, 18) + ' (' + p.value + ' wei)');
            row('Spender', p.spender);
            row('Recipient', p.recipient);
            if (p.owner !== p.account) row('Owner', p.owner);
            row('Contract', p.contract);
            const far = p.deadlineSeconds && 'after 9999-12-31 (unix ' + p.deadlineSeconds + ')';
            row('Deadline', p.deadline ? utc(p.deadline) : far);
            row('Valid after', p.validAfter && utc(p.validAfter));
            row('Message', p.message);
            for (const f of p.fields || []) row(f.label, f.value);
            for (const d of p.delegations || []) row('Delegation', JSON.stringify(d));
            if (p.sponsorship) row('Sponsorship', JSON.stringify(p.sponsorship));
            box.append(rows);
            for (const call of p.calls || []) box.append(renderPreview(call));
            return box;
          }

          function renderRequest(r) {
            const item = el('li', 'request');
            item.dataset.requestId = r.requestId;
            item.append(el('h3', null, 'Held by rule ' + r.rule));
            const facts = el('dl');
            const fact = (label, value) => facts.append(el('dt', null, label), el('dd', null, value));
            fact('Asked by', r.initiator + ' (' + r.method + ')');
            fact('Asked at', utc(r.createdAt));
            fact('Expires', utc(r.expiresAt));
            const who = r.approvals.length ? ' (' + r.approvals.join(', ') + ')' : '';
            const needed = r.required.map((q) => q.count + ' of ' + q.group).join(', ');
            fact('Approvals', r.approvals.length + ' so far' + who + '; needs ' + needed);
            fact('Request', r.requestId);
            fact('Digest', r.digest);
            item.append(facts);
            for (const p of r.previews) item.append(renderPreview(p));

            const approve = el('button', 'approve', 'Approve');
            const reject = el('button', 'reject', 'Reject…');
            const reason = el('input', 'reason');
            reason.placeholder = 'Reason (optional, shown to the caller)';
            reason.maxLength = 120;
            const confirm = el('button', 'confirm-reject', 'Reject');
            const cancel = el('button', 'cancel', 'Cancel');
            const buttons = [approve, reject, confirm, cancel];
            for (const b of buttons) b.type = 'button';
            const asking = (on) => {
              busy = on;
              reason.hidden = confirm.hidden = cancel.hidden = !on;
              approve.hidden = reject.hidden = on;
              if (on) reason.focus();
            };
            asking(false);
            const act = async (call) => {
              for (const b of buttons) b.disabled = true;
              busy = true;
              show('error', '');
              show('notice', '');
              try { show('notice', describe(await call())); } catch (e) { show('error', e.message); }
              busy = false;
              shown = '';  // redraw, so the buttons come back even when the list did not change
              await refresh(true);
            };
            // The approval names the digest of the request drawn here: the service refuses it for any other.
            approve.addEventListener('click', () => {
              act(() => rpc('signerkit_approve', [r.requestId, { digest: r.digest }]));
            });
            reject.addEventListener('click', () => asking(true));
            cancel.addEventListener('click', () => asking(false));
            confirm.addEventListener('click', () => {
              const text = reason.value.trim();
              act(() => rpc('signerkit_reject', text ? [r.requestId, text] : [r.requestId]));
            });
            const actions = el('div', 'actions');
            actions.append(approve, reject, reason, confirm, cancel);
            item.append(actions);
            return item;
          }

          function describe(status) {
            const id = 'Request ' + status.requestId;
            const names = status.approvals.join(', ');
            if (status.status === 'signed') return id + ' is signed: approved by ' + names + '.';
            const count = status.approvals.length + ' approval(s) (' + names + ')';
            if (status.status === 'held') return 'Approved. ' + id + ' has ' + count + ' and waits for more.';
            return id + ' is ' + status.status + '.';
          }

          function draw(list) {
            const text = JSON.stringify(list);
            if (text === shown) return;
            shown = text;
            $('list').replaceChildren(...list.map(renderRequest));
            $('count').textContent = '(' + list.length + ')';
            $('empty').hidden = list.length > 0;
          }

          // Loads the list and draws it when it changed; `force` loads even while an action is being taken.
          async function refresh(force) {
            if (!token || (busy && !force)) return;
            const load = ++loads;
            try {
              const list = await rpc('signerkit_heldRequests', []);
              if (load !== loads || !token) return;
              show('load-error', '');
              draw(list);
            } catch (e) {
              show(token ? 'load-error' : 'error', 'The list could not be loaded: ' + e.message + '.');
            }
          }

          function logout() {
            token = null;
            shown = '';
            busy = false;
            clearInterval(timer);
            $('list').replaceChildren();
            $('requests').hidden = $('logout').hidden = true;
            $('login').hidden = false;
            for (const id of ['error', 'notice', 'load-error']) show(id, '');
          }

          $('login').addEventListener('submit', async (event) => {
            event.preventDefault();
            token = $('token').value.trim();
            $('token').value = '';
            let list;
            try { list = await rpc('signerkit_heldRequests', []); } catch (e) {
              logout();
              show('error', 'Login failed: ' + e.message + '.');
              return;
            }
            $('login').hidden = true;
            $('requests').hidden = $('logout').hidden = false;
            show('error', '');
            draw(list);
            timer = setInterval(() => refresh(false), 3000);
          });
          $('logout').addEventListener('click', logout);
          $('login').querySelector('button').disabled = false;  // the form works from here on
        })();
        """#
}
