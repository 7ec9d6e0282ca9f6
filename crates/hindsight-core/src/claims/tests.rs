use super::vocabulary::{VOCABULARY, Word};
use super::*;

use Claim::{Drafter, GpusFree, Loaded, Port, Ranks, Ready};

/// Sentences as agents and people write them in transcripts, each with the
/// claims it makes.
const CLAIMS: &[(&str, &[Claim])] = &[
    // The server is up, in the words agents use besides "ready".
    ("The server is serving requests now.", &[Ready]),
    ("vLLM is up on :8085.", &[Ready, Port(8085)]),
    (
        "The endpoint is live at http://10.0.0.5:8085/v1.",
        &[Ready, Port(8085)],
    ),
    ("Server came up fine, no errors in the log.", &[Ready]),
    ("It came up fine after the restart.", &[Ready]),
    ("You should be good to go.", &[Ready]),
    ("Everything should be good to go now.", &[Ready]),
    ("The endpoint should now be working.", &[Ready]),
    (
        "All set — the model is loaded and serving on port 8085.",
        &[Ready, Loaded, Port(8085)],
    ),
    (
        "We're good: SGLang is running across both GPUs.",
        &[Ready, Ranks],
    ),
    ("The endpoint responds.", &[Ready]),
    ("Deployment is complete.", &[Ready]),
    ("Server started on port 8085.", &[Ready, Port(8085)]),
    ("✅ Server running", &[Ready]),
    ("- ✅ vLLM server running on :8085", &[Ready, Port(8085)]),
    ("The model server is up and running.", &[Ready]),
    ("Qwen3-8B is live on port 8000.", &[Ready, Port(8000)]),
    ("It's up.", &[Ready]),
    ("It’s back up on 30000.", &[Ready, Port(30000)]),
    ("Ollama is serving on 11434.", &[Ready, Port(11434)]),
    ("The API is healthy and answering.", &[Ready]),
    ("Health check passes.", &[Ready]),
    (
        "llama-server came up cleanly on 0.0.0.0:8080.",
        &[Ready, Port(8080)],
    ),
    ("Done: TGI is ready for requests.", &[Ready]),
    ("The service went live a minute ago.", &[Ready]),
    (
        "Everything is up and running across both GPUs.",
        &[Ready, Ranks],
    ),
    (
        "The container is up, port 8000 is open.",
        &[Ready, Port(8000)],
    ),
    ("Confirmed: the server is up.", &[Ready]),
    (
        "The server's up and you can hit it at localhost:8085.",
        &[Ready, Port(8085)],
    ),
    (
        "SGLang is healthy; the drafter is loaded and all 8 ranks are up.",
        &[Ready, Drafter, Ranks],
    ),
    (
        "The server is up, let me know if you need anything else.",
        &[Ready],
    ),
    (
        "Graph capture is done and the log is quiet, so the server is up.",
        &[Ready],
    ),
    ("**Status:** the vLLM server is `up` and healthy.", &[Ready]),
    ("The server must be up by now.", &[Ready]),
    (
        "✅ vLLM came up fine and is serving Qwen3-14B on :8085, running across both GPUs.",
        &[Ready, Ranks, Port(8085)],
    ),
    (
        "You should be good to go: point your client at http://gpu-07:8085/v1.",
        &[Ready],
    ),
    ("Health check passed.", &[Ready]),
    (
        "The drafter failed to load, but the server is up.",
        &[Ready],
    ),
    (
        "The server, which I started on 8085, is up.",
        &[Ready, Port(8085)],
    ),
    (
        "Curl to /v1/models returns the model list, so the server is ready.",
        &[Ready],
    ),
    ("Everything is working as expected.", &[Ready]),
    ("It came up on the second try.", &[Ready]),
    (
        "The API server is now accepting requests on port 8000.",
        &[Ready, Port(8000)],
    ),
    (
        "Model loaded, server listening on 8000, ready to take requests.",
        &[Ready, Loaded, Port(8000)],
    ),
    // The weights are loaded.
    ("Weights are loaded.", &[Loaded]),
    ("The checkpoint finished loading in 41 seconds.", &[Loaded]),
    ("Loaded all 4 safetensors shards.", &[Loaded]),
    ("Model weights fully loaded onto the GPU.", &[Loaded]),
    // The drafter is active.
    ("The EAGLE-3 drafter is active.", &[Drafter]),
    ("Speculative decoding is on.", &[Drafter]),
    ("MTP is working.", &[Drafter]),
    ("vLLM is serving with the EAGLE drafter.", &[Ready, Drafter]),
    // All ranks are up.
    ("All 8 TP ranks are up.", &[Ranks]),
    ("Both GPUs are in use by the server.", &[Ranks]),
    ("The model is sharded across all 4 GPUs.", &[Ranks]),
    ("Running across both GPUs.", &[Ranks]),
    ("All four workers joined.", &[Ranks]),
    ("It's using 8 GPUs now.", &[Ranks]),
    ("It's running on GPU 0.", &[Ready]),
    // A port is listening.
    ("It is listening on port 30000", &[Port(30000)]),
    ("Bound to 0.0.0.0:8000.", &[Port(8000)]),
    ("Port 8085 is open.", &[Port(8085)]),
    // The GPUs are free.
    ("The GPUs are free now.", &[GpusFree]),
    ("Killed the old server and freed both GPUs.", &[GpusFree]),
    ("GPU memory is back to 0 MiB.", &[GpusFree]),
    ("nvidia-smi shows no processes on either card.", &[GpusFree]),
    ("All eight GPUs are idle.", &[GpusFree]),
    ("Both GPUs show 0 MiB used, so they are free.", &[GpusFree]),
    ("Memory on both cards has been released.", &[GpusFree]),
    // Chinese.
    ("服务已启动，监听 8085 端口。", &[Ready, Port(8085)]),
    ("服务器已经启动了。", &[Ready]),
    ("vLLM 已成功启动。", &[Ready]),
    (
        "那是旧进程冲突造成的失败，后来用另一个任务已经重启成功了。",
        &[Ready],
    ),
    (
        "The dev server restarted successfully on the second try.",
        &[Ready],
    ),
    ("模型正在运行，可以开始测试了。", &[Ready]),
    ("模型权重加载完成。", &[Loaded]),
    ("显存已释放。", &[GpusFree]),
    ("GPU 已经空闲了。", &[GpusFree]),
    ("服务已在 8085 端口启动。", &[Ready, Port(8085)]),
    ("我检查了日志，服务已经正常运行。", &[Ready]),
    (
        "✅ 服务已启动，正在 30000 端口上运行，可以开始测试了。",
        &[Ready, Port(30000)],
    ),
    // Japanese.
    ("サーバーが起動しました。", &[Ready]),
    ("vLLM サーバーは稼働中です。", &[Ready]),
    ("GPUメモリが解放されました。", &[GpusFree]),
    ("サーバーの起動が完了しました。", &[Ready]),
    // Korean.
    ("서버가 실행 중입니다.", &[Ready]),
    ("서버가 시작되었습니다.", &[Ready]),
    ("GPU가 비었습니다.", &[GpusFree]),
    // German.
    ("Der Server läuft.", &[Ready]),
    (
        "Der vLLM-Server ist gestartet und läuft auf Port 8085.",
        &[Ready, Port(8085)],
    ),
    ("Die Gewichte sind geladen.", &[Loaded]),
    ("Die GPUs sind jetzt frei.", &[GpusFree]),
    ("Die GPU ist jetzt frei.", &[GpusFree]),
    (
        "Der Server läuft und antwortet auf Port 8000, das Modell ist geladen.",
        &[Ready, Loaded, Port(8000)],
    ),
    (
        "Die API antwortet jetzt auf Port 8000.",
        &[Ready, Port(8000)],
    ),
    // French.
    ("Le serveur est prêt.", &[Ready]),
    (
        "Le serveur a démarré et tourne sur le port 8085.",
        &[Ready, Port(8085)],
    ),
    ("Les GPU sont libres.", &[GpusFree]),
    // Spanish.
    ("El servidor está funcionando.", &[Ready]),
    (
        "El servidor ya está listo en el puerto 8000.",
        &[Ready, Port(8000)],
    ),
    ("Las GPU están libres.", &[GpusFree]),
    ("Ya está corriendo en el puerto 8080.", &[Ready, Port(8080)]),
    // Portuguese.
    (
        "O servidor está rodando na porta 8000.",
        &[Ready, Port(8000)],
    ),
    ("As GPUs estão livres.", &[GpusFree]),
    // Russian.
    ("Сервер запущен и работает.", &[Ready]),
    ("Сервер запущен на порту 8085.", &[Ready, Port(8085)]),
    ("Видеопамять освобождена.", &[GpusFree]),
    ("GPU свободны.", &[GpusFree]),
    // Ukrainian.
    (
        "Контейнер перезапущено - бот працює на новій версії.",
        &[Ready],
    ),
    ("Сервер запущено на порту 8000.", &[Ready, Port(8000)]),
    ("Бот готовий працювати з новим функціоналом.", &[Ready]),
    // Seen missed on real sessions.
    (
        "The local file-search fastmcp server is now up and listening for requests over STDIO.",
        &[Ready],
    ),
    ("现在两个地址都返回 200：", &[Ready]),
    ("The dashboard server is up and serving.", &[Ready]),
    (
        "I built the release binary and confirmed the page serves correctly.",
        &[Ready],
    ),
    (
        "- ./run.sh brings the server up on http://127.0.0.1:8000",
        &[Ready, Port(8000)],
    ),
    (
        "- Ollama starts and the qwen model is preloaded and ready to use",
        &[Ready, Loaded],
    ),
    (
        "- Port: `8000` (reachable at `http://localhost:8000`)",
        &[Ready, Port(8000)],
    ),
    ("- Container: `vllm-llama-4-scout` is up", &[Ready]),
    (
        "That confirms several servers are running and the request lands on an old instance.",
        &[Ready],
    ),
];

/// Sentences that claim nothing: hedges, plans, forecasts, questions and
/// negations, in every language the vocabulary speaks.
const NOT_CLAIMS: &[&str] = &[
    "Once the server is up I'll run the benchmark.",
    "The server is not up yet.",
    "Is the server up?",
    "The server should be ready in a minute.",
    "It is capturing CUDA graphs, the last step before it is ready",
    "Let me check whether the GPUs are free.",
    "The server isn't running.",
    "I'll stop the old server, confirm both GPUs are free, then launch.",
    "It should be ready in a few minutes.",
    "The server should come up soon.",
    "If the server is running, the port should be open.",
    "Let me check whether it is up.",
    "It may take a while to come up.",
    "Waiting for the server to be ready.",
    "I'll wait until the weights are loaded before sending a request.",
    "Once it's up, I'll hit /v1/models.",
    "Starting the server on port 8085 now.",
    "Launching vLLM with TP=2 across both GPUs.",
    "Getting the server up and running on port 8085.",
    "The weights are still loading.",
    "Did the server come up?",
    "Hopefully it is up by now.",
    "It's probably still loading the checkpoint.",
    "The server will be ready shortly.",
    "Still no sign of the server being up.",
    "I'm not sure the drafter is active.",
    "We need to make sure all 8 ranks are up before benchmarking.",
    "Give it a minute and it should be serving.",
    "The GPUs aren't free yet — the old process is still holding 70 GB.",
    "Feel free to ping me when it is ready.",
    "If all went well, the server is up.",
    "The drafter should be active in a minute or two.",
    "Before launching, let me make sure the GPUs are free.",
    "The GPUs will be free once the old server exits.",
    "Could you check if port 8000 is open?",
    "I'm going to bring the server up on port 8085.",
    "Server up?",
    "Let me know if the endpoint responds for you.",
    "I think the server is up, but let me verify with curl.",
    "The server might be up already.",
    "The test server needs to be running before we run this.",
    "Don't assume the GPUs are free.",
    "Nothing is listening on 8000 yet.",
    "The old server is no longer running.",
    "I started the server with --port 8085.",
    "The server is running out of memory during graph capture.",
    "It passed.",
    "All tests passed.",
    "The model is good at coding.",
    "The model is available on Hugging Face.",
    "The server didn't come up.",
    "It never came up.",
    "The tokenizer is loaded.",
    "I loaded the tokenizer.",
    "It's up to you whether we keep port 8000.",
    "Everything is set up; next I'll launch the server.",
    "Let me confirm the server is up.",
    "The server seems to be up.",
    "I killed the process so the GPUs should be free in a few seconds.",
    "It's using 70 GB per GPU.",
    "The old server is gone; the GPUs should be free in a few seconds.",
    "Loading a 14B checkpoint across two GPUs should take a minute or two, so it may take a while to come up.",
    // Chinese.
    "服务还没有启动成功。",
    "如果服务已启动，就可以开始测试。",
    "服务应该马上就能启动好了。",
    "服务启动了吗？",
    "显存还没释放。",
    "服务正在启动中，请稍等。",
    "我已经启动了服务。",
    "模型加载需要一点时间，服务应该马上就能启动好了。",
    "如果服务已启动，我再告诉你。",
    // Japanese.
    "サーバーはまだ稼働中ではありません。",
    "サーバーは起動しましたか？",
    "vLLM サーバーを起動しました。",
    "サーバーを起動中です。",
    // Korean.
    "서버가 아직 실행 중이 아닙니다.",
    "서버가 시작되었습니까?",
    "서버를 시작했습니다.",
    // German.
    "Der Server läuft noch nicht.",
    "Sobald der Server läuft, starte ich den Benchmark.",
    "Der Server sollte in einer Minute bereit sein.",
    "Die GPUs sind noch nicht frei.",
    "Der Server wird gestartet.",
    "Die GPU ist noch nicht frei, der alte Prozess gibt den Speicher gerade ab.",
    "Der Server sollte in ein, zwei Minuten bereit sein.",
    "Sobald er läuft, schicke ich eine Testanfrage.",
    // French.
    "Le serveur n'est pas encore prêt.",
    "Le serveur devrait être prêt dans quelques minutes.",
    // Spanish.
    "El servidor todavía no está listo.",
    "Si el servidor está funcionando, lanzo las pruebas.",
    "El servidor debería estar listo en unos minutos.",
    // Portuguese.
    "O servidor ainda não está rodando.",
    // Russian.
    "Сервер ещё не запущен.",
    "Проверю, запущен ли сервер.",
    "Сервер должен быть готов через минуту.",
    // Ukrainian.
    "Сервер ще не запущено.",
    "Якщо сервер працює, запускаю тести.",
    // Seen as false alarms on real sessions.
    "Keep your host proxy running at http://127.0.0.1:7890 while building.",
    "I'll look at why it keeps running invalid SQL.",
    "I'll look at the response and request models so a missing SQL is handled cleanly, then add validation that blocks running invalid SQL and gives a better message.",
    "I'll make SQL generation more robust when no tables are found and add validation so we neither produce nor execute invalid SQL that triggers MySQL syntax errors.",
];

#[test]
fn sentences_that_claim() {
    let wrong: Vec<String> = CLAIMS
        .iter()
        .filter(|(text, expected)| claims(text) != *expected)
        .map(|(text, expected)| format!("{text}\n  expected {expected:?}, got {:?}", claims(text)))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(CLAIMS.len() >= 60);
}

#[test]
fn sentences_that_do_not() {
    let wrong: Vec<String> = NOT_CLAIMS
        .iter()
        .filter(|text| !claims(text).is_empty())
        .map(|text| format!("{text}\n  got {:?}", claims(text)))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(NOT_CLAIMS.len() >= 40);
}

#[test]
fn claims_come_per_sentence_and_once() {
    assert_eq!(
        claims(
            "SGLang loaded all 64 shards in 34 seconds. The server is up with the EAGLE-3 drafter; next I'll run the benchmark."
        ),
        [Loaded, Ready, Drafter]
    );
    assert_eq!(
        claims("All 8 TP ranks are up and the GPUs are free now"),
        [Ranks, GpusFree]
    );
    assert_eq!(
        claims("The server is up. Is it? Yes, the server is up and running."),
        [Ready]
    );
    assert_eq!(claims(""), []);
}

#[test]
fn a_run_without_sentence_ends_is_read_only_at_its_start() {
    let run = "the server is up and the gpus are free, ".repeat(20_000);
    assert_eq!(claims(&run), [Ready, GpusFree]);
    let late = format!("{} the server is up", "x, ".repeat(1_000));
    assert_eq!(claims(&late), []);
}

#[test]
fn folding_spells_out_contractions_and_lowers_case() {
    assert_eq!(
        fold("It’s UP, isn't it? Let's go."),
        "it is up, is not it? let us go."
    );
    assert_eq!(
        fold("Der SERVER Läuft; СЕРВЕР ЗАПУЩЕН"),
        "der server läuft; сервер запущен"
    );
    assert_eq!(fold("**Server**  `running`"), "server running");
    assert_eq!(
        fold("We're good, you'll see, I'd say"),
        "we are good, you will see, i would say"
    );
    assert_eq!(fold("jusqu'à l'API"), "jusqu'à l'api");
}

#[test]
fn sentences_end_where_prose_does_not_dots_in_hosts() {
    let text = "Up on 0.0.0.0:8085 via llama.cpp v0.11. Next? 好了。Done";
    let parts: Vec<&str> = sentences(text)
        .iter()
        .map(|s| text[s.start..s.end].trim())
        .collect();
    assert_eq!(
        parts,
        [
            "Up on 0.0.0.0:8085 via llama.cpp v0.11",
            "Next",
            "好了",
            "Done"
        ]
    );
}

#[test]
fn ports_are_read_next_to_their_words() {
    for (text, port) in [
        (" port 8085", Some(8085)),
        (" :8085", Some(8085)),
        (" 0.0.0.0:8085", Some(8085)),
        (" http://localhost:8085/v1", Some(8085)),
        (" 8085", Some(8085)),
        (" 8 GPUs", None),
        (" 16 GPUs", None),
        (" port 80", Some(80)),
        (" 端口 8085", Some(8085)),
    ] {
        assert_eq!(port_after(text), port, "{text}");
    }
}

/// Every phrase reads as folding leaves text (so it can be found), holds
/// no sentence end (so it fits in one sentence) and is no longer than a
/// short phrase.
#[test]
fn the_vocabulary_is_written_folded() {
    for (text, _) in VOCABULARY {
        let phrase = text.trim_matches('~');
        assert!(!phrase.is_empty(), "{text:?}");
        assert_eq!(fold(phrase), phrase, "{text:?} is not folded");
        assert!(
            !phrase.contains(['.', '!', '?', ';', '\n', '。', '！', '？', '；'])
                || phrase == "llama.cpp",
            "{text:?} holds a sentence end"
        );
        assert!(!phrase.contains('~'), "{text:?}");
    }
    // A phrase listed twice has two roles, never the same one twice.
    for (i, entry) in VOCABULARY.iter().enumerate() {
        assert!(
            !VOCABULARY[..i].contains(entry),
            "{entry:?} is listed twice"
        );
    }
    assert!(VOCABULARY.iter().any(|(_, w)| *w == Word::Idiom));
}

/// The native search (aho-corasick) and the wasm one ([`LiteralSet`]) find
/// the same phrases, on these sentences and on the start of every example.
#[test]
fn both_searches_find_the_same_phrases() {
    let Some(words) = WORDS.as_ref() else {
        panic!("the vocabulary does not build");
    };
    let set = LiteralSet::new(phrases());
    let mut texts: Vec<String> = crate::test_examples::texts()
        .into_iter()
        .map(|(_, text)| fold(&text[..crate::source::floor_char_boundary(&text, 100_000)]))
        .collect();
    texts.extend(CLAIMS.iter().map(|(text, _)| fold(text)));
    texts.extend(NOT_CLAIMS.iter().map(|text| fold(text)));
    let mut found = 0;
    for text in &texts {
        let mut native = Vec::new();
        each_phrase(&words.search, text, |s, e, i| native.push((s, e, i)));
        let mut wasm = Vec::new();
        set.each_overlapping(text.as_bytes(), |s, e, i| wasm.push((s, e, i)));
        native.sort_unstable();
        wasm.sort_unstable();
        assert_eq!(native, wasm, "{text}");
        found += native.len();
    }
    assert!(found > 1000, "{found}");
}
