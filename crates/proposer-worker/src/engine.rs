//! The worker's two states: no model (waiting for `load`), and a model with its context.
//!
//! llama.cpp's context borrows its model, so the serving loop for a model lives inside the
//! scope that owns that model; a new `load` leaves the scope (dropping context, then model)
//! and enters a fresh one. No self-referential structs, no leaked models.
//!
//! The session's context belongs to proposals: its KV cache holds the last prompt so the next
//! one pays only for what differs. A `perceive` request (seed 001's sensor, "one fresh-context
//! call") gets a context of its own instead, created for the request and dropped after it:
//! the sensor sees nothing a proposal left behind, and the proposer's cached prefix is still
//! there afterwards, without a save, restore or re-evaluation.

use crate::Channel;
use crate::prefix_cache;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::{LlamaContextParams, LlamaPoolingType};
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use smart_proposer::PromptFormat;
use smart_proposer::protocol::{
    LoadRequest, ModelInfo, PerceiveRequest, Perceived, PrepareRequest, Prepared, Proposal, ProposeRequest,
    RankRequest, Ranked, Request, Response, ResponseBody, Timings, WorkerError, WorkerErrorCode,
};
use std::io::{BufRead, Write};
use std::num::NonZeroU32;
use std::time::Instant;

/// Architectures this llama.cpp build runs that can generate text. A load failure for one of
/// these means the file is damaged; for anything else, that the architecture is the problem.
const GENERATIVE: &[&str] = &[
    "llama",
    "gemma",
    "gemma2",
    "gemma3",
    "gemma3n",
    "qwen2",
    "qwen3",
    "qwen2moe",
    "qwen3moe",
    "phi2",
    "phi3",
    "mistral",
    "smollm3",
    "granite",
    "olmo",
    "olmo2",
    "stablelm",
    "starcoder2",
    "deepseek2",
    "exaone",
    "internlm2",
];
/// Architectures that exist in GGUF but cannot write text.
const ENCODER_ONLY: &[&str] = &["bert", "nomic-bert", "jina-bert-v2", "t5encoder", "modern-bert", "wavtokenizer-dec"];

const BATCH: usize = 512;

/// How many candidates one ranking batch scores (each is a sequence of its own; more are
/// scored in further batches).
const RANK_SEQS: usize = 63;

fn err(code: WorkerErrorCode, message: impl Into<String>) -> WorkerError {
    WorkerError::new(code, message)
}

pub fn run<R: BufRead, W: Write>(channel: &mut Channel<R, W>) -> anyhow::Result<()> {
    let mut backend = LlamaBackend::init()?;
    if std::env::var_os("SMART_WORKER_LOG").is_none() {
        backend.void_logs();
    }
    let mut next_load: Option<(u64, LoadRequest)> = None;
    loop {
        let (id, load) = match next_load.take() {
            Some(l) => l,
            None => {
                let Some(req) = channel.receive() else { return Ok(()) };
                match req.request {
                    Request::Load(load) => (req.id, load),
                    Request::Health => {
                        if !channel.send(req.id, ResponseBody::Ok(Response::Health { model: None })) {
                            return Ok(());
                        }
                        continue;
                    }
                    Request::Shutdown => {
                        channel.send(req.id, ResponseBody::Ok(Response::Bye));
                        return Ok(());
                    }
                    Request::Propose(_)
                    | Request::Embed { .. }
                    | Request::Perceive(_)
                    | Request::Rank(_)
                    | Request::Prepare(_) => {
                        let e = err(WorkerErrorCode::NoModel, "no model is loaded; send `load` first");
                        if !channel.send(req.id, ResponseBody::Err(e)) {
                            return Ok(());
                        }
                        continue;
                    }
                }
            }
        };
        let started = Instant::now();
        let loaded = load_model(&backend, &load);
        let (model, mut info) = match loaded {
            Ok(m) => m,
            Err(e) => {
                if !channel.send(id, ResponseBody::Err(e)) {
                    return Ok(());
                }
                continue;
            }
        };
        let threads = load.threads.unwrap_or_else(default_threads).max(1);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(load.n_ctx.max(256)))
            .with_n_batch(BATCH as u32)
            .with_n_threads(threads as i32)
            .with_n_threads_batch(threads as i32)
            // Sliding-window models (Gemma 3) forget old positions unless the full cache is
            // kept, and prefix reuse needs them.
            .with_swa_full(true)
            // Ranking scores many candidate answers in one batch, each its own sequence sharing
            // the prompt's cache: one unified cache, so sharing costs nothing and every
            // sequence may be as long as the context.
            .with_kv_unified(true)
            .with_n_seq_max(RANK_SEQS as u32 + 1);
        let ctx = match model.new_context(&backend, params) {
            Ok(c) => c,
            Err(e) => {
                let e = err(
                    WorkerErrorCode::ContextTooSmall,
                    format!("cannot create a context of {} tokens: {e}", load.n_ctx),
                );
                if !channel.send(id, ResponseBody::Err(e)) {
                    return Ok(());
                }
                continue;
            }
        };
        info.threads = threads;
        info.n_ctx = ctx.n_ctx();
        info.load_ms = started.elapsed().as_millis() as u64;
        let mut session =
            Session { backend: &backend, model: &model, ctx, info, cached: vec![], cache_dir: load.cache_dir.clone() };
        if !channel.send(id, ResponseBody::Ok(Response::Loaded(session.info.clone()))) {
            return Ok(());
        }
        loop {
            let Some(req) = channel.receive() else { return Ok(()) };
            let body = match req.request {
                Request::Load(load) => {
                    next_load = Some((req.id, load));
                    break;
                }
                Request::Shutdown => {
                    channel.send(req.id, ResponseBody::Ok(Response::Bye));
                    return Ok(());
                }
                Request::Health => Ok(Response::Health { model: Some(session.info.clone()) }),
                Request::Propose(p) => session.propose(&p).map(Response::Proposal),
                Request::Embed { text } => session.embed(&text).map(|vector| Response::Embedding { vector }),
                Request::Perceive(p) => session.perceive(&p).map(Response::Perceived),
                Request::Rank(r) => session.rank(&r).map(Response::Ranked),
                Request::Prepare(p) => session.prepare(&p).map(Response::Prepared),
            };
            let body = match body {
                Ok(r) => ResponseBody::Ok(r),
                Err(e) => ResponseBody::Err(e),
            };
            if !channel.send(req.id, body) {
                return Ok(());
            }
        }
    }
}

/// Cores − 1, but at least two where there are two. Token-by-token generation on every core
/// collapsed as soon as anything else ran (toolchain.md): each token is a tiny decode whose
/// threads wait for the slowest. Ranking is one large batch per utterance, which shares out
/// well: on the 2-core reference box two threads take a proposal from 1.16 s to 0.62 s, and with
/// a busy-looping process beside it cost 1.31 s against one thread's 1.15 s — slower, not
/// collapsed (`smart-bench --only proposer`, SMART_THREADS=1|2).
fn default_threads() -> u32 {
    let cores = std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(2);
    cores.saturating_sub(1).max(cores.min(2)).max(1)
}

fn load_model(backend: &LlamaBackend, load: &LoadRequest) -> Result<(LlamaModel, ModelInfo), WorkerError> {
    let path = std::path::Path::new(&load.path);
    let meta = std::fs::metadata(path)
        .map_err(|e| err(WorkerErrorCode::ModelMissing, format!("no model file at {}: {e}", load.path)))?;
    if !meta.is_file() {
        return Err(err(WorkerErrorCode::ModelMissing, format!("{} is not a file", load.path)));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| err(WorkerErrorCode::ModelMissing, format!("cannot open {}: {e}", load.path)))?;
    let header = smart_proposer::gguf::read_info(&mut std::io::BufReader::new(file))
        .map_err(|e| err(WorkerErrorCode::ModelInvalid, format!("{} is not a usable model: {e}", load.path)))?;
    let arch = header.architecture.clone().unwrap_or_default();
    if arch.is_empty() {
        return Err(err(WorkerErrorCode::ModelInvalid, format!("{} names no architecture in its header", load.path)));
    }
    if ENCODER_ONLY.contains(&arch.as_str()) {
        return Err(err(
            WorkerErrorCode::UnsupportedArchitecture,
            format!("{} is a {arch} model, which encodes text but cannot write a tool call", load.path),
        ));
    }
    let params = LlamaModelParams::default().with_n_gpu_layers(load.gpu_layers);
    let model = LlamaModel::load_from_file(backend, path, &params).map_err(|e| {
        if GENERATIVE.contains(&arch.as_str()) {
            err(
                WorkerErrorCode::ModelInvalid,
                format!("llama.cpp could not load {} ({arch}): the file is damaged or truncated ({e})", load.path),
            )
        } else {
            err(
                WorkerErrorCode::UnsupportedArchitecture,
                format!("llama.cpp in this build cannot load {} — architecture {arch:?} ({e})", load.path),
            )
        }
    })?;
    let name = header
        .name
        .clone()
        .unwrap_or_else(|| path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
    let format = load.format.unwrap_or_else(|| PromptFormat::detect(&name, header.chat_template.as_deref()));
    let info = ModelInfo {
        path: load.path.clone(),
        architecture: arch,
        name,
        format,
        n_params: model.n_params(),
        n_ctx: 0,
        threads: 0,
        load_ms: 0,
    };
    Ok((model, info))
}

struct Session<'m> {
    backend: &'m LlamaBackend,
    model: &'m LlamaModel,
    ctx: LlamaContext<'m>,
    info: ModelInfo,
    /// The tokens whose keys and values are in the cache, in order.
    cached: Vec<LlamaToken>,
    cache_dir: Option<String>,
}

impl Session<'_> {
    fn propose(&mut self, req: &ProposeRequest) -> Result<Proposal, WorkerError> {
        let format = self.info.format;
        let grammar = smart_proposer::grammar::build(format, &req.tools)
            .map_err(|e| err(WorkerErrorCode::BadRequest, e.to_string()))?;
        let (prefix_text, rest_text) = format.render_parts(req);
        let vocab = self.model.vocab();
        // The two parts are tokenized apart, so the prefix's tokens are the same whatever
        // follows it, and its evaluated state can be reused.
        let prefix = vocab.tokenize(prefix_text.as_bytes(), true, true);
        let mut tokens = prefix.clone();
        tokens.extend(vocab.tokenize(rest_text.as_bytes(), false, true));
        let room = self.ctx.n_ctx() as usize;
        if tokens.len() + req.max_tokens as usize >= room {
            return Err(err(
                WorkerErrorCode::ContextTooSmall,
                format!(
                    "the prompt is {} tokens and the answer may take {}, but the context holds {room}",
                    tokens.len(),
                    req.max_tokens
                ),
            ));
        }
        let mut timings = Timings { prompt_tokens: tokens.len() as u32, ..Timings::default() };
        let t0 = Instant::now();
        self.load_prompt(&prefix, &tokens, req.no_cache, &mut timings)?;
        timings.prompt_ms = t0.elapsed().as_secs_f64() * 1000.0;

        let mut sampler = LlamaSampler::grammar(self.model, &grammar, "root")
            .map_err(|e| err(WorkerErrorCode::Internal, format!("llama.cpp refused the tool grammar: {e:?}")))?;
        let t1 = Instant::now();
        let mut text = Vec::<u8>::new();
        let mut logits_at = -1i32;
        for n in tokens.len()..tokens.len() + req.max_tokens as usize {
            let greedy = greedy(&self.ctx, logits_at);
            // A reply is one line: when the model itself wants a new line, the reply is over
            // (the grammar forbids the newline, so without this it would ramble on).
            if is_reply(&text) && vocab.token_to_piece(greedy, true, None).contains(&b'\n') {
                break;
            }
            let token = constrain(&self.ctx, greedy, &mut sampler, logits_at, &mut timings)?;
            if vocab.is_eog(token) {
                break;
            }
            sampler.accept(token);
            text.extend(vocab.token_to_piece(token, true, None));
            timings.generated_tokens += 1;
            let so_far = String::from_utf8_lossy(&text);
            let done = match format {
                PromptFormat::Completion => so_far.ends_with('\n'),
                _ => format.call_complete(&so_far),
            };
            if done {
                break;
            }
            let mut batch = LlamaBatch::new(1, 1);
            batch.add(token, n as i32, &[0], true).map_err(|e| err(WorkerErrorCode::Internal, e.to_string()))?;
            self.ctx
                .decode(&mut batch)
                .map_err(|e| err(WorkerErrorCode::Internal, format!("generation failed: {e}")))?;
            self.cached.push(token);
            logits_at = 0;
        }
        timings.generation_ms = t1.elapsed().as_secs_f64() * 1000.0;
        let raw = String::from_utf8_lossy(&text).into_owned();
        let visible: Vec<&str> = req.tools.iter().map(|t| t.name.as_str()).collect();
        let output = smart_proposer::parse::parse(format, &raw, &visible)
            .map_err(|e| err(WorkerErrorCode::Unparsable, format!("{e} (raw answer: {raw:?})")))?;
        Ok(Proposal { output, raw, timings })
    }

    /// Brings the context to hold `tokens` (which start with `prefix`), with the last token's
    /// logits ready: the longest common prefix with what the cache holds is kept, the static
    /// prefix comes from the disk cache when memory does not have it (and is saved there after
    /// it is evaluated), and only the rest is evaluated.
    fn load_prompt(
        &mut self,
        prefix: &[LlamaToken],
        tokens: &[LlamaToken],
        no_cache: bool,
        timings: &mut Timings,
    ) -> Result<(), WorkerError> {
        let (pos, disk) = self.restore(prefix, tokens, no_cache, timings)?;
        self.evaluate(tokens, pos, true)?;
        if let Some(path) = &disk
            && pos < prefix.len()
            && prefix.len() == tokens.len()
        {
            prefix_cache::save(&self.ctx, path, prefix);
        }
        Ok(())
    }

    /// The part of [`Session::load_prompt`] before the last step: the context holds
    /// `tokens[..pos]` (the static prefix at least, from memory, disk or evaluated here and
    /// saved), and `pos < tokens.len()`, so at least one token is left to evaluate for logits.
    /// Returns `pos` and the prefix's cache file, if one is kept.
    fn restore(
        &mut self,
        prefix: &[LlamaToken],
        tokens: &[LlamaToken],
        no_cache: bool,
        timings: &mut Timings,
    ) -> Result<(usize, Option<std::path::PathBuf>), WorkerError> {
        // Reuse the longest common prefix; at least one token is evaluated to get logits.
        let mut keep = if no_cache { 0 } else { common_prefix(&self.cached, tokens) };
        keep = keep.min(tokens.len().saturating_sub(1));
        // The disk is consulted only when memory does not already hold the whole prefix.
        let disk = if no_cache || keep >= prefix.len() { None } else { self.prefix_file(prefix) };
        if let Some(path) = &disk {
            self.ctx.clear_kv_cache();
            self.cached.clear();
            keep = 0;
            match prefix_cache::load(&mut self.ctx, path, prefix) {
                Ok(()) => {
                    self.cached = prefix.to_vec();
                    keep = prefix.len().min(tokens.len().saturating_sub(1));
                    timings.prefix_from_disk = keep as u32;
                }
                Err(_) => {
                    // Stale, foreign or damaged: forget it and evaluate.
                    self.ctx.clear_kv_cache();
                    let _ = std::fs::remove_file(path);
                }
            }
        }
        if !self.ctx.clear_kv_cache_seq(Some(0), Some(keep as u32), None).unwrap_or(false) {
            self.ctx.clear_kv_cache();
            keep = 0;
        }
        self.cached.truncate(keep);
        timings.cached_tokens = keep as u32;

        // The prefix first (then saved, if it was evaluated here).
        let mut pos = keep;
        if pos < prefix.len() && prefix.len() < tokens.len() {
            self.evaluate(&tokens[..prefix.len()], pos, false)?;
            pos = prefix.len();
            if let Some(path) = &disk {
                prefix_cache::save(&self.ctx, path, prefix);
            }
        }
        Ok((pos, disk))
    }

    /// Evaluates a static prefix ahead of need (see [`Request::Prepare`]).
    fn prepare(&mut self, req: &PrepareRequest) -> Result<Prepared, WorkerError> {
        let prefix = self.model.vocab().tokenize(req.prefix.as_bytes(), true, true);
        if prefix.is_empty() || prefix.len() + 64 >= self.ctx.n_ctx() as usize {
            return Err(err(
                WorkerErrorCode::ContextTooSmall,
                format!("a prefix of {} tokens does not fit a context of {}", prefix.len(), self.ctx.n_ctx()),
            ));
        }
        let mut timings = Timings { prompt_tokens: prefix.len() as u32, ..Timings::default() };
        let t0 = Instant::now();
        self.load_prompt(&prefix, &prefix, false, &mut timings)?;
        timings.prompt_ms = t0.elapsed().as_secs_f64() * 1000.0;
        Ok(Prepared { tokens: prefix.len() as u32, timings })
    }

    /// Scores each candidate continuation of `prefix + rest` for choosing among them: the
    /// log-probability of its first token, plus that of every later token at which it parts
    /// ways with another candidate. (A token all the remaining candidates share adds the same
    /// to each; a token after a candidate stands alone is what its beginning already implies.
    /// So two candidates' scores differ exactly as their full log-probabilities do up to the
    /// point where one of them is settled.) The candidates are laid out as a trie; its
    /// branching nodes and their ancestors are evaluated in one batch — each candidate a
    /// sequence of its own sharing the prompt's cache — and the prompt's cache is left as it
    /// was, so the next request still reuses it.
    fn rank(&mut self, req: &RankRequest) -> Result<Ranked, WorkerError> {
        if req.candidates.is_empty() {
            return Err(err(WorkerErrorCode::BadRequest, "nothing to rank: no candidates"));
        }
        let vocab = self.model.vocab();
        let prefix = vocab.tokenize(req.prefix.as_bytes(), true, true);
        let mut tokens = prefix.clone();
        tokens.extend(vocab.tokenize(req.rest.as_bytes(), false, true));
        let cands: Vec<Vec<LlamaToken>> =
            req.candidates.iter().map(|c| vocab.tokenize(c.as_bytes(), false, true)).collect();
        if let Some(i) = cands.iter().position(Vec::is_empty) {
            return Err(err(WorkerErrorCode::BadRequest, format!("candidate {i} is empty")));
        }
        let longest = cands.iter().map(Vec::len).max().unwrap_or(0);
        let room = self.ctx.n_ctx() as usize;
        if tokens.len() + longest >= room {
            return Err(err(
                WorkerErrorCode::ContextTooSmall,
                format!(
                    "the prompt is {} tokens and a candidate {longest}, but the context holds {room}",
                    tokens.len()
                ),
            ));
        }
        if cands.len() > RANK_SEQS {
            return Err(err(
                WorkerErrorCode::BadRequest,
                format!("{} candidates; at most {RANK_SEQS} can be ranked at once", cands.len()),
            ));
        }
        let mut timings = Timings { prompt_tokens: tokens.len() as u32, ..Timings::default() };
        let t0 = Instant::now();
        let (pos, _) = self.restore(&prefix, &tokens, false, &mut timings)?;
        timings.prompt_ms = t0.elapsed().as_secs_f64() * 1000.0;

        // One batch: the prompt's remaining tokens — shared by every candidate's sequence, so
        // the candidates' tokens can attend to them in the same batch — then the trie. Only
        // where candidates part ways does the model's next-token distribution tell them apart;
        // a token every remaining candidate shares, or one after a candidate stands alone, adds
        // the same to all or nothing to the choice. So logits are computed only at the prompt's
        // last token and at branching nodes (the vocabulary projection is most of a small
        // model's cost per token), and only those nodes and their ancestors are evaluated.
        let t1 = Instant::now();
        let trie = Trie::new(&cands);
        let nodes = trie.needed();
        let all: Vec<i32> = (0..=cands.len() as i32).collect();
        let pending = &tokens[pos..];
        let mut batch = LlamaBatch::new(pending.len() + nodes.len(), all.len() as i32);
        for (i, tok) in pending.iter().enumerate() {
            batch
                .add(*tok, (pos + i) as i32, &all, i + 1 == pending.len())
                .map_err(|e| err(WorkerErrorCode::Internal, e.to_string()))?;
        }
        let n = tokens.len() as i32;
        for &node in &nodes {
            let nd = &trie.nodes[node];
            let seqs: Vec<i32> = nd.seqs.iter().map(|s| *s as i32 + 1).collect();
            batch
                .add(nd.token, n + nd.depth as i32, &seqs, nd.children.len() > 1)
                .map_err(|e| err(WorkerErrorCode::Internal, e.to_string()))?;
        }
        for s in 1..=cands.len() as i32 {
            self.ctx
                .copy_kv_cache_seq(0, s, None, Some(pos as u32))
                .map_err(|e| err(WorkerErrorCode::Internal, format!("cannot share the prompt's cache: {e}")))?;
        }
        let decoded = self.ctx.decode(&mut batch);
        // The candidates' sequences are dropped whatever happened: the prompt's cache (sequence
        // 0, now holding the whole prompt) is all the next request may find.
        for s in 1..=cands.len() as i32 {
            let _ = self.ctx.clear_kv_cache_seq(Some(s as u32), None, None);
        }
        if let Err(e) = decoded {
            self.ctx.clear_kv_cache();
            self.cached.clear();
            return Err(err(WorkerErrorCode::Internal, format!("scoring failed: {e}")));
        }
        self.cached = tokens.clone();
        // Logits are read by position in the batch: the prompt's last token, then each
        // branching node after the pending prompt tokens.
        let root = NextToken::at(&self.ctx, pending.len() as i32 - 1);
        let mut next_at: Vec<Option<NextToken>> = (0..trie.nodes.len()).map(|_| None).collect();
        for (b, &node) in nodes.iter().enumerate() {
            if trie.nodes[node].children.len() > 1 {
                next_at[node] = Some(NextToken::at(&self.ctx, (pending.len() + b) as i32));
            }
        }
        timings.generated_tokens = nodes.len() as u32;
        let first: Vec<f32> = cands.iter().map(|c| root.log_p(c[0])).collect();
        let mut scores = first.clone();
        for (k, c) in cands.iter().enumerate() {
            let path = trie.path(k);
            for (depth, tok) in c.iter().enumerate().skip(1) {
                if let Some(next) = path.get(depth - 1).and_then(|p| next_at[*p].as_ref()) {
                    scores[k] += next.log_p(*tok);
                }
            }
        }
        timings.generation_ms = t1.elapsed().as_secs_f64() * 1000.0;
        Ok(Ranked { scores, first, tokens: cands.iter().map(|c| c.len() as u32).collect(), timings })
    }

    /// Evaluates `tokens[from..]` in the session's context, keeping `cached` in step with it.
    fn evaluate(&mut self, tokens: &[LlamaToken], from: usize, logits: bool) -> Result<(), WorkerError> {
        evaluate(&mut self.ctx, tokens, from, logits, Some(&mut self.cached))
    }

    /// Seed 001's perception sensor: the report of [`smart_proposer::perception`], generated
    /// greedily under its grammar in a context made for this request alone.
    fn perceive(&mut self, req: &PerceiveRequest) -> Result<Perceived, WorkerError> {
        use smart_proposer::perception;
        let prompt = perception::prompt(self.info.format, req);
        let vocab = self.model.vocab();
        let tokens = vocab.tokenize(prompt.as_bytes(), true, true);
        // The session's size is the memory the person allowed a context; this one stays within it.
        let needed = tokens.len() + req.max_tokens as usize + 1;
        let room = self.info.n_ctx as usize;
        if needed > room {
            return Err(err(
                WorkerErrorCode::ContextTooSmall,
                format!(
                    "the perception prompt is {} tokens and the report may take {}, but a context holds {room}",
                    tokens.len(),
                    req.max_tokens
                ),
            ));
        }
        let mut timings = Timings { prompt_tokens: tokens.len() as u32, ..Timings::default() };
        let t0 = Instant::now();
        // Sized to the request, so the fresh KV cache costs megabytes, not the session's size.
        let n_ctx = needed.div_ceil(256).max(2) * 256;
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n_ctx as u32))
            .with_n_batch(BATCH as u32)
            .with_n_threads(self.info.threads as i32)
            .with_n_threads_batch(self.info.threads as i32);
        let mut ctx = self
            .model
            .new_context(self.backend, params)
            .map_err(|e| err(WorkerErrorCode::Internal, format!("cannot create a perception context: {e}")))?;
        evaluate(&mut ctx, &tokens, 0, true, None)?;
        timings.prompt_ms = t0.elapsed().as_secs_f64() * 1000.0;

        let mut sampler = LlamaSampler::grammar(self.model, perception::grammar(), "root")
            .map_err(|e| err(WorkerErrorCode::Internal, format!("llama.cpp refused the perception grammar: {e:?}")))?;
        let t1 = Instant::now();
        let mut text = Vec::<u8>::new();
        let mut logits_at = -1i32;
        for n in tokens.len()..tokens.len() + req.max_tokens as usize {
            let token = constrain(&ctx, greedy(&ctx, logits_at), &mut sampler, logits_at, &mut timings)?;
            if vocab.is_eog(token) {
                break;
            }
            sampler.accept(token);
            text.extend(vocab.token_to_piece(token, true, None));
            timings.generated_tokens += 1;
            // Once the object is closed the grammar allows nothing but the end; no need to
            // evaluate one more token to hear it.
            if text.ends_with(b"}}") && serde_json::from_slice::<serde_json::Value>(&text).is_ok() {
                break;
            }
            let mut batch = LlamaBatch::new(1, 1);
            batch.add(token, n as i32, &[0], true).map_err(|e| err(WorkerErrorCode::Internal, e.to_string()))?;
            ctx.decode(&mut batch).map_err(|e| err(WorkerErrorCode::Internal, format!("generation failed: {e}")))?;
            logits_at = 0;
        }
        timings.generation_ms = t1.elapsed().as_secs_f64() * 1000.0;
        let raw = String::from_utf8_lossy(&text).into_owned();
        let report: serde_json::Value = serde_json::from_str(&raw).map_err(|e| {
            err(
                WorkerErrorCode::Unparsable,
                format!(
                    "the perception report is not complete JSON after {} tokens ({e}): {raw:?}",
                    timings.generated_tokens
                ),
            )
        })?;
        perception::validate(&report).map_err(|e| {
            err(WorkerErrorCode::Unparsable, format!("the perception report breaks its grammar ({e}): {raw:?}"))
        })?;
        Ok(Perceived { report, raw, timings })
    }

    /// Where the evaluated state of `prefix` is kept: one file per (model file, context size,
    /// prefix tokens). The key only has to avoid needless misses — a loaded file is used only if
    /// the tokens saved with it are exactly `prefix`.
    fn prefix_file(&self, prefix: &[LlamaToken]) -> Option<std::path::PathBuf> {
        use std::hash::{Hash, Hasher};
        let dir = std::path::PathBuf::from(self.cache_dir.as_ref()?);
        std::fs::create_dir_all(&dir).ok()?;
        let meta = std::fs::metadata(&self.info.path).ok()?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        // "v2": the layout of a unified, multi-sequence context.
        ("v2", &self.info.path, meta.len(), meta.modified().ok(), self.ctx.n_ctx()).hash(&mut h);
        prefix.iter().map(|t| t.0).collect::<Vec<i32>>().hash(&mut h);
        Some(dir.join(format!("prefix-{:016x}.state", h.finish())))
    }

    fn embed(&mut self, text: &str) -> Result<Vec<f32>, WorkerError> {
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(2048))
            .with_n_threads(self.info.threads as i32)
            .with_n_threads_batch(self.info.threads as i32)
            .with_embeddings(true)
            .with_pooling_type(LlamaPoolingType::Mean);
        let mut ctx = self
            .model
            .new_context(self.backend, params)
            .map_err(|e| err(WorkerErrorCode::Internal, format!("cannot create an embedding context: {e}")))?;
        let tokens = self.model.vocab().tokenize(text.as_bytes(), true, false);
        if tokens.is_empty() || tokens.len() > 2048 {
            return Err(err(
                WorkerErrorCode::BadRequest,
                format!("text of {} tokens cannot be embedded (1..=2048)", tokens.len()),
            ));
        }
        let mut batch = LlamaBatch::new(tokens.len(), 1);
        batch.add_sequence(&tokens, 0, false).map_err(|e| err(WorkerErrorCode::Internal, e.to_string()))?;
        ctx.decode(&mut batch).map_err(|e| err(WorkerErrorCode::Internal, format!("embedding failed: {e}")))?;
        let v = ctx.embeddings_seq_ith(0).map_err(|e| err(WorkerErrorCode::Internal, e.to_string()))?;
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::EPSILON);
        Ok(v.iter().map(|x| x / norm).collect())
    }
}

/// Evaluates `tokens[from..]` in batches; logits for the last token only when `logits` (the
/// prompt's end). `cached`, when given, grows batch by batch with what the context holds, so a
/// failure halfway leaves it true.
fn evaluate(
    ctx: &mut LlamaContext<'_>,
    tokens: &[LlamaToken],
    from: usize,
    logits: bool,
    mut cached: Option<&mut Vec<LlamaToken>>,
) -> Result<(), WorkerError> {
    let mut pos = from;
    while pos < tokens.len() {
        let end = (pos + BATCH).min(tokens.len());
        let mut batch = LlamaBatch::new(end - pos, 1);
        for (i, tok) in tokens[pos..end].iter().enumerate() {
            let at = pos + i;
            batch
                .add(*tok, at as i32, &[0], logits && at + 1 == tokens.len())
                .map_err(|e| err(WorkerErrorCode::Internal, e.to_string()))?;
        }
        ctx.decode(&mut batch).map_err(|e| err(WorkerErrorCode::Internal, format!("prompt evaluation failed: {e}")))?;
        if let Some(cached) = cached.as_deref_mut() {
            cached.extend_from_slice(&tokens[pos..end]);
        }
        pos = end;
    }
    Ok(())
}

/// The unconstrained greedy token.
fn greedy(ctx: &LlamaContext<'_>, at: i32) -> LlamaToken {
    let logits = ctx.get_logits_ith(at);
    let mut best = 0usize;
    for (i, l) in logits.iter().enumerate() {
        if *l > logits[best] {
            best = i;
        }
    }
    LlamaToken::new(best as i32)
}

/// The constrained greedy token: `greedy` if the grammar accepts it, otherwise the best token
/// the grammar allows. Same answer as filtering the whole vocabulary every time, at a fraction
/// of the cost.
fn constrain(
    ctx: &LlamaContext<'_>,
    greedy: LlamaToken,
    grammar: &mut LlamaSampler,
    at: i32,
    timings: &mut Timings,
) -> Result<LlamaToken, WorkerError> {
    let logit = ctx.get_logits_ith(at).get(greedy.0 as usize).copied().unwrap_or(0.0);
    let mut single = LlamaTokenDataArray::new(vec![LlamaTokenData::new(greedy, logit, 0.0)], false);
    grammar.apply(&mut single);
    if single.data.first().is_some_and(|d| d.logit().is_finite()) {
        return Ok(greedy);
    }
    timings.grammar_fallbacks += 1;
    let mut all = ctx.token_data_array_ith(at);
    grammar.apply(&mut all);
    all.data
        .iter()
        .filter(|d| d.logit().is_finite())
        .max_by(|a, b| a.logit().total_cmp(&b.logit()))
        .map(|d| d.id())
        .ok_or_else(|| err(WorkerErrorCode::Internal, "the grammar allows no token here"))
}

/// Tokenize `prompt_file`, evaluate it and greedily generate `n` tokens: plain llama.cpp, no
/// grammar, no cache, no protocol. Prints timings as JSON.
pub fn raw_bench(model_path: &str, prompt_file: &str, n: usize) -> anyhow::Result<String> {
    let mut backend = LlamaBackend::init()?;
    if std::env::var_os("SMART_WORKER_LOG").is_none() {
        backend.void_logs();
    }
    let prompt = std::fs::read_to_string(prompt_file)?;
    let model = LlamaModel::load_from_file(&backend, model_path, &LlamaModelParams::default())?;
    let threads = default_threads() as i32;
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(4096))
        .with_n_batch(BATCH as u32)
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    let mut ctx = model.new_context(&backend, params)?;
    let tokens = model.vocab().tokenize(prompt.as_bytes(), true, true);
    let t0 = Instant::now();
    let mut pos = 0;
    while pos < tokens.len() {
        let end = (pos + BATCH).min(tokens.len());
        let mut batch = LlamaBatch::new(end - pos, 1);
        for (i, tok) in tokens[pos..end].iter().enumerate() {
            batch.add(*tok, (pos + i) as i32, &[0], pos + i + 1 == tokens.len())?;
        }
        ctx.decode(&mut batch)?;
        pos = end;
    }
    let prompt_ms = t0.elapsed().as_secs_f64() * 1000.0;
    let t1 = Instant::now();
    let mut sampler = LlamaSampler::greedy();
    let mut generated = 0;
    let mut at = -1;
    for i in 0..n {
        let token = sampler.sample(&ctx, at);
        if model.vocab().is_eog(token) {
            break;
        }
        generated += 1;
        let mut batch = LlamaBatch::new(1, 1);
        batch.add(token, (tokens.len() + i) as i32, &[0], true)?;
        ctx.decode(&mut batch)?;
        at = 0;
    }
    let generation_ms = t1.elapsed().as_secs_f64() * 1000.0;
    Ok(serde_json::json!({
        "prompt_tokens": tokens.len(),
        "prompt_ms": prompt_ms,
        "generated_tokens": generated,
        "generation_ms": generation_ms,
        "threads": threads,
    })
    .to_string())
}

/// Whether the answer so far is a reply rather than the opening of a call.
fn is_reply(text: &[u8]) -> bool {
    text.iter().find(|c| !c.is_ascii_whitespace()).is_some_and(|c| !matches!(c, b'<' | b'`' | b'{'))
}

/// The next-token distribution after one batch position, kept: the next decode overwrites the
/// context's logits.
struct NextToken {
    logits: Vec<f32>,
    /// log Σ exp(logits).
    lse: f32,
}

impl NextToken {
    /// After batch position `at` (−1: the last).
    fn at(ctx: &LlamaContext<'_>, at: i32) -> NextToken {
        let logits: Vec<f32> = ctx.get_logits_ith(at).to_vec();
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let lse = max + logits.iter().map(|l| (l - max).exp()).sum::<f32>().ln();
        NextToken { logits, lse }
    }

    /// The log-probability of `t`.
    fn log_p(&self, t: LlamaToken) -> f32 {
        self.logits.get(t.0 as usize).map_or(f32::NEG_INFINITY, |l| l - self.lse)
    }
}

/// Candidate token sequences as a prefix tree: a shared opening is one node.
struct Trie {
    nodes: Vec<TrieNode>,
    /// Per candidate, its node at each depth.
    paths: Vec<Vec<usize>>,
}

struct TrieNode {
    token: LlamaToken,
    depth: usize,
    parent: Option<usize>,
    /// The candidates passing through it.
    seqs: Vec<usize>,
    children: Vec<usize>,
}

impl Trie {
    fn new(cands: &[Vec<LlamaToken>]) -> Trie {
        let mut t = Trie { nodes: vec![], paths: vec![] };
        let mut roots: Vec<usize> = vec![];
        for (k, c) in cands.iter().enumerate() {
            let mut path = vec![];
            let mut parent: Option<usize> = None;
            for (depth, tok) in c.iter().enumerate() {
                let siblings = match parent {
                    Some(p) => t.nodes[p].children.clone(),
                    None => roots.clone(),
                };
                let node = match siblings.into_iter().find(|n| t.nodes[*n].token == *tok) {
                    Some(n) => n,
                    None => {
                        t.nodes.push(TrieNode { token: *tok, depth, parent, seqs: vec![], children: vec![] });
                        let n = t.nodes.len() - 1;
                        match parent {
                            Some(p) => t.nodes[p].children.push(n),
                            None => roots.push(n),
                        }
                        n
                    }
                };
                t.nodes[node].seqs.push(k);
                path.push(node);
                parent = Some(node);
            }
            t.paths.push(path);
        }
        t
    }

    /// The nodes to evaluate: every branching node (where candidates part ways) and its
    /// ancestors, shallowest first — the order a sequence's tokens must have in a batch.
    fn needed(&self) -> Vec<usize> {
        let mut keep = vec![false; self.nodes.len()];
        for n in 0..self.nodes.len() {
            if self.nodes[n].children.len() > 1 {
                let mut at = Some(n);
                while let Some(i) = at {
                    if keep[i] {
                        break;
                    }
                    keep[i] = true;
                    at = self.nodes[i].parent;
                }
            }
        }
        let mut v: Vec<usize> = (0..self.nodes.len()).filter(|n| keep[*n]).collect();
        v.sort_by_key(|n| (self.nodes[*n].depth, *n));
        v
    }

    fn path(&self, k: usize) -> &[usize] {
        self.paths.get(k).map_or(&[], Vec::as_slice)
    }
}

fn common_prefix(a: &[LlamaToken], b: &[LlamaToken]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}
