import EthereumPrimitives
import Foundation
import SignerKitHTTPServer

/// The loopback page that frames the hosted data-collection form and relays its verdict.
///
/// The page's script embeds the form in an iframe and listens for `message` events. It forwards a message to
/// SignerKit (`POST <message path>`, JSON `{"origin","data"}`) only when it comes from the iframe's window
/// and from the form's origin and has type `IC_COMPLETE` or `IC_ERROR`; SignerKit checks the same again
/// (`DataCollectionMessage/accept(_:origin:formURL:)`). Its status line (`#status`, with
/// `data-outcome` = `loading`, `waiting` (the form has loaded), `complete`, `error` or `closed`) says what SignerKit made of it.
enum DataCollectionPageHTML {
    /// The page for one session.
    ///
    /// - Parameters:
    ///   - formURL: the form (the URL `DataCollection` built: prefill, theme).
    ///   - formOrigin: its origin, the only one whose messages count.
    ///   - messagePath: where the page posts an accepted message.
    ///   - optionId: the option being paid with, shown to the user.
    ///   - nonce: the script's CSP nonce.
    static func page(formURL: URL, formOrigin: String, messagePath: String, optionId: String, nonce: String)
        -> String
    {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>Payment details — SignerKit</title>
        <style>
        body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#f6f7f9}
        header{padding:1rem 1.5rem;background:#1b2a41;color:#fff}
        header h1{font-size:1.2rem;margin:0}header p{margin:.25rem 0 0;font-size:.9rem;opacity:.85}
        main{padding:1rem 1.5rem}
        iframe{width:100%;height:calc(100vh - 11rem);min-height:420px;border:1px solid #ccd;border-radius:8px;
        background:#fff}
        #status{margin:.75rem 0 0;font-size:.95rem}
        #status[data-outcome=complete]{color:#176117}#status[data-outcome=error],#status[data-outcome=closed]{color:#a11}
        </style></head>
        <body>
        <header><h1>SignerKit: payment details</h1>
        <p>The merchant needs a few details for option \(HTML.escape(EchoedText.abbreviated(optionId))) \
        (Travel Rule). Fill in the form from \(HTML.escape(formOrigin)); SignerKit continues once the form \
        says it is done.</p></header>
        <main>
        <p id="status" data-outcome="loading">Loading the form…</p>
        </main>
        <script nonce="\(nonce)">
        (() => {
          const formOrigin = \(scriptString(formOrigin));
          const messagePath = \(scriptString(messagePath));
          const status = document.getElementById('status');
          // Made here, so that its load listener is in place before it starts loading the form.
          const frame = document.createElement('iframe');
          frame.id = 'form';
          frame.title = 'Payment details form';
          const texts = {
            complete: 'Details received. SignerKit continues the payment; you can close this window.',
            error: 'The form reported an error; SignerKit stopped the payment.',
            closed: 'SignerKit is no longer waiting for this form.'
          };
          let sent = false;
          frame.addEventListener('load', () => {
            if (status.dataset.outcome !== 'loading') return;
            status.textContent = 'Waiting for the form…';
            status.dataset.outcome = 'waiting';
          });
          frame.src = \(scriptString(formURL.absoluteString));
          status.before(frame);
          window.addEventListener('message', (event) => {
            if (sent || event.origin !== formOrigin || event.source !== frame.contentWindow) return;
            const text = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
            let type;
            try { type = JSON.parse(text).type; } catch (e) { return; }
            if (type !== 'IC_COMPLETE' && type !== 'IC_ERROR') return;
            sent = true;
            fetch(messagePath, {
              method: 'POST', headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify({ origin: event.origin, data: text })
            }).then((r) => r.json()).then((answer) => {
              if (answer.outcome === 'ignored') { sent = false; return; }
              status.textContent = texts[answer.outcome] || texts.closed;
              status.dataset.outcome = answer.outcome;
            }).catch(() => {
              status.textContent = texts.closed;
              status.dataset.outcome = 'closed';
            });
          });
        })();
        </script>
        </body></html>
        """
    }

    /// `text` as a JavaScript string literal that cannot end the script element (`<` is escaped).
    static func scriptString(_ text: String) -> String {
        JSONValue.string(text).serialized.replacingOccurrences(of: "<", with: "\\u003c")
    }

    /// The page's Content-Security-Policy: its own nonce'd script, fetches to itself, frames of the form's origin.
    static func contentSecurityPolicy(formOrigin: String, nonce: String) -> String {
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-\(nonce)'; connect-src 'self'; "
            + "frame-src \(formOrigin); base-uri 'none'; form-action 'none'"
    }
}
