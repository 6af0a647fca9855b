//! The `wheelport` binary: parse arguments, call the library, render, exit with a
//! documented code (see `wheelport::cli::exit`).

use std::io::Write;
use std::process::ExitCode;
use wheelport::cli::{self, exit, Command, PtxCommand, SassCommand};

fn main() -> ExitCode {
    // The target registry is made before the arguments are parsed: `--target` takes its
    // profile names, and a broken `WHEELPORT_TARGETS_DIR` must be reported as such.
    if let Err(e) = wheelport::target::registry() {
        eprintln!(
            "wheelport: error: {}: {e}",
            wheelport::target::TARGETS_DIR_ENV
        );
        return ExitCode::from(exit::INPUT_ERROR);
    }
    let cli = cli::parse_args();
    match run(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("wheelport: error: {e}");
            ExitCode::from(exit::of_error(&e))
        }
    }
}

/// The relink table of `profile` with the user's tables merged over it.
fn load_relink_table(
    profile: &wheelport::target::Profile,
    files: &[std::path::PathBuf],
) -> Result<wheelport::relink::Table, wheelport::Error> {
    if !profile.relinks() {
        return Err(wheelport::Error::new(
            wheelport::error::ErrorKind::Input,
            format!("--target {}", profile.name),
            format!(
                "the {} target keeps CUDA imports; it has no relink table",
                profile.name
            ),
        ));
    }
    let mut table = wheelport::relink::load_for(profile).map_err(wheelport::Error::from)?;
    for f in files {
        table.merge_user(f).map_err(wheelport::Error::from)?;
    }
    Ok(table)
}

/// The PTX lowering used by `ptx lower` and `ptx twin`.
fn lowering() -> Option<&'static wheelport::twin::LowerFn<'static>> {
    Some(&wheelport::lower::lower_module)
}

fn search_options(a: &cli::ToolchainArgs) -> wheelport::toolchain::SearchOptions {
    let mut o = wheelport::toolchain::SearchOptions::from_env();
    o.toolchain_dir = a.toolchain.clone();
    o.overrides = a.tools.iter().cloned().collect();
    o
}

fn build_cache(a: &cli::CacheArgs) -> Option<wheelport::build::Cache> {
    if a.no_cache {
        return None;
    }
    a.cache_dir
        .clone()
        .or_else(wheelport::build::Cache::default_dir)
        .map(wheelport::build::Cache::new)
}

/// The profile `name` with `--nan`'s choice, when given, over the profile's own. The override
/// is a copy that lives for the rest of the process (profiles are `'static`).
fn profile_with(
    name: &str,
    nan: Option<wheelport::target::NanMode>,
) -> Result<&'static wheelport::target::Profile, wheelport::Error> {
    let p = profile_of(name)?;
    Ok(match nan {
        Some(n) if n != p.nan => Box::leak(Box::new(wheelport::target::Profile {
            nan: n,
            ..p.clone()
        })),
        _ => p,
    })
}

fn profile_of(name: &str) -> Result<&'static wheelport::target::Profile, wheelport::Error> {
    wheelport::target::profile(name).ok_or_else(|| {
        wheelport::Error::new(
            wheelport::error::ErrorKind::Input,
            "<command line>",
            format!("unknown target `{name}`"),
        )
    })
}

fn write_stdout(text: &str) -> Result<(), wheelport::Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(wheelport::Error::io("<stdout>", e))
        }
        _ => Ok(()),
    }
}

/// `wheelport batch` (see `wheelport::batch`).
#[allow(clippy::too_many_arguments)]
fn batch(
    inputs: Vec<std::path::PathBuf>,
    target: Option<String>,
    out: std::path::PathBuf,
    jobs: usize,
    shard: Option<(u32, u32)>,
    json: Option<std::path::PathBuf>,
    allow_partial: bool,
    offload_arch: Option<String>,
    sass: cli::SassMode,
    merge: bool,
) -> Result<u8, wheelport::Error> {
    use wheelport::batch;
    let summary = if merge {
        batch::merge(&out, &inputs)?
    } else {
        let [mirror] = inputs.as_slice() else {
            eprintln!("wheelport: error: batch takes exactly one mirror (or --merge SHARD...)");
            return Ok(exit::USAGE);
        };
        let target = target.expect("clap requires --target without --merge");
        let exe = std::env::current_exe().map_err(|e| wheelport::Error::io("<current exe>", e))?;
        let mut extra_args = Vec::new();
        if allow_partial {
            extra_args.push("--allow-partial".to_string());
        }
        if let Some(a) = offload_arch {
            extra_args.extend(["--offload-arch".to_string(), a]);
        }
        if sass == cli::SassMode::Skip {
            extra_args.extend(["--sass".to_string(), "skip".to_string()]);
        }
        let conv = batch::process::ProcessConverter {
            exe,
            target: target.clone(),
            extra_args,
            // Each conversion may use as many threads as the batch: two conversions on two
            // cores then share them, and one long conversion alone still uses both.
            jobs,
        };
        let opts = batch::Options {
            mirror: mirror.clone(),
            out: out.clone(),
            jobs,
            shard,
        };
        let bar = if std::env::var_os("WHEELPORT_NO_PROGRESS").is_some() {
            indicatif::ProgressBar::hidden()
        } else {
            indicatif::ProgressBar::new_spinner()
        };
        bar.set_message("converting");
        let s = batch::run(&opts, &conv, &|r| {
            bar.inc(1);
            bar.set_message(r.input.clone());
        })?;
        bar.finish_and_clear();
        s
    };
    print!("{}", batch::render_table(&summary));
    if let Some(path) = json {
        let mut text = serde_json::to_vec_pretty(&summary).expect("summary serializes");
        text.push(b'\n');
        wheelport::report::write::write_report(&path, &text)?;
    }
    Ok(if summary.failed + summary.partial > 0 {
        exit::BATCH_INCOMPLETE
    } else {
        exit::OK
    })
}

fn run(cmd: Command) -> Result<u8, wheelport::Error> {
    match cmd {
        Command::Batch {
            inputs,
            target,
            out,
            jobs,
            shard,
            json,
            allow_partial,
            offload_arch,
            sass,
            merge,
        } => batch(
            inputs,
            target,
            out,
            jobs,
            shard,
            json,
            allow_partial,
            offload_arch,
            sass,
            merge,
        ),
        Command::Sass {
            command:
                SassCommand::Lift {
                    inputs,
                    out,
                    arch,
                    cubins,
                    toolchain,
                },
        } => sass_lift(&inputs, out.as_deref(), arch.as_deref(), cubins, &toolchain),
        Command::Doctor {
            target,
            json,
            toolchain,
        } => {
            let opts = search_options(&toolchain);
            let profiles: Vec<&wheelport::target::Profile> = match &target {
                Some(t) => vec![profile_of(t)?],
                None => wheelport::target::builtin().iter().collect(),
            };
            let chains: Vec<_> = profiles
                .iter()
                .map(|p| wheelport::toolchain::discover(p, &opts))
                .collect();
            let text = if json {
                let mut s = serde_json::to_string_pretty(&chains).expect("report serializes");
                s.push('\n');
                s
            } else {
                let mut s = String::new();
                for (p, tc) in profiles.iter().zip(&chains) {
                    s.push_str(&wheelport::toolchain::render_doctor(std::slice::from_ref(
                        tc,
                    )));
                    if let Some(line) = wheelport::shim::doctor_line(p) {
                        s.push_str(&format!("  {line}\n"));
                    }
                }
                s.push_str(&wheelport::toolchain::render_nvdisasm(
                    &wheelport::toolchain::discover_nvdisasm(&opts),
                ));
                s
            };
            write_stdout(&text)?;
            Ok(
                if target.is_some() && chains.iter().any(|c| !c.is_complete()) {
                    exit::TOOLS_MISSING
                } else {
                    exit::OK
                },
            )
        }
        Command::Ptx {
            command:
                PtxCommand::Lower {
                    files,
                    target,
                    offload_arch,
                    nan,
                    emit,
                    out,
                    toolchain,
                    cache,
                },
        } => {
            let Some(lower) = lowering() else {
                eprintln!("wheelport: error: `ptx lower` needs the PTX lowering, which is not in this build yet");
                return Ok(exit::NOT_IMPLEMENTED);
            };
            let profile = profile_with(&target, nan)?;
            let emit = match emit {
                cli::EmitKind::Llvm => wheelport::build::cmd::Emit::Llvm,
                cli::EmitKind::Obj => wheelport::build::cmd::Emit::Obj,
            };
            let tc = (emit == wheelport::build::cmd::Emit::Obj)
                .then(|| wheelport::toolchain::discover(profile, &search_options(&toolchain)));
            let opts = wheelport::build::BuildOptions {
                archs: offload_arch,
                cache: build_cache(&cache),
                split_bytes: None,
            };
            let s = wheelport::build::cmd::lower_files(
                &files,
                profile,
                tc.as_ref(),
                &opts,
                emit,
                &out,
                lower,
            )?;
            for d in &s.diagnostics {
                eprintln!("{d}");
            }
            for n in &s.not_lowered {
                eprintln!(
                    "wheelport: {}: kernel `{}` not lowered: {}",
                    n.file, n.kernel, n.reason
                );
            }
            for w in &s.written {
                println!("{}", w.display());
            }
            Ok(if s.not_lowered.is_empty() {
                exit::OK
            } else {
                exit::NOT_LOWERED
            })
        }
        Command::Ptx {
            command:
                PtxCommand::Twin {
                    input,
                    out,
                    arch,
                    keep_source,
                    json,
                    toolchain,
                    cache,
                },
        } => {
            let Some(lower) = lowering() else {
                eprintln!("wheelport: error: `ptx twin` needs the PTX lowering, which is not in this build yet");
                return Ok(exit::NOT_IMPLEMENTED);
            };
            let profile = profile_of("cuda")?;
            let tc = wheelport::toolchain::discover(profile, &search_options(&toolchain));
            let name = input.display().to_string();
            let data = wheelport::input::map_regular(&input)?.to_vec();
            let opts = wheelport::twin::TwinOptions {
                arch,
                cache: build_cache(&cache),
                keep_source,
            };
            let (bytes, report) = wheelport::twin::twin(&data, &name, profile, &tc, &opts, lower)?;
            wheelport::twin::write_output(&out, &bytes)?;
            if let (Some(id), false) = (&report.identity, report.identity_edits.is_empty()) {
                // The object finds its identity interposer beside it (DT_RUNPATH `$ORIGIN`).
                let (soname, lib) = wheelport::twin::identity::interposer(id)?;
                let dir = out.parent().filter(|d| !d.as_os_str().is_empty());
                let path = dir.map_or_else(|| soname.clone().into(), |d| d.join(&soname));
                wheelport::twin::write_output(&path, &lib)?;
            }
            let text = if json {
                let mut s = serde_json::to_string_pretty(&report).expect("report serializes");
                s.push('\n');
                s
            } else {
                wheelport::twin::render(&report)
            };
            write_stdout(&text)?;
            Ok(if report.complete() {
                exit::OK
            } else {
                exit::NOT_LOWERED
            })
        }
        Command::Convert {
            inputs,
            target,
            out,
            offload_arch,
            nan,
            sass,
            device_code,
            json,
            allow_partial,
            strict,
            jobs,
            local_version,
            relink_tables,
            all_kernels,
            quiet,
            toolchain,
        } => {
            let profile = profile_with(&target, nan)?;
            let relink = if !profile.relinks() {
                if !relink_tables.is_empty() {
                    eprintln!(
                        "wheelport: error: --relink-table does not apply to --target {}",
                        profile.name
                    );
                    return Ok(exit::USAGE);
                }
                None
            } else {
                Some(std::sync::Arc::new(load_relink_table(
                    profile,
                    &relink_tables,
                )?))
            };
            let label = local_version.unwrap_or_default();
            if !label.is_empty() {
                if let Err(m) = wheelport::convert::check_local_label(&label) {
                    eprintln!("wheelport: error: --local-version: {m}");
                    return Ok(exit::USAGE);
                }
            }
            for a in &offload_arch {
                if !profile.known_archs.contains(a) {
                    eprintln!(
                        "wheelport: warning: --offload-arch {a} is not one of {}'s known archs ({})",
                        profile.name,
                        profile.known_archs.join(", ")
                    );
                }
            }
            if let Some(j) = jobs {
                let _ = rayon::ThreadPoolBuilder::new()
                    .num_threads(j.max(1))
                    .build_global();
            }
            let source_date_epoch = match std::env::var("SOURCE_DATE_EPOCH") {
                Ok(v) => match v.trim().parse::<i64>() {
                    Ok(n) => Some(n),
                    Err(_) => {
                        eprintln!("wheelport: error: SOURCE_DATE_EPOCH={v:?} is not an integer");
                        return Ok(exit::USAGE);
                    }
                },
                Err(_) => None,
            };
            let opts = wheelport::convert::Options {
                profile,
                relink,
                offload_archs: offload_arch,
                local_version: label,
                policy: if allow_partial {
                    wheelport::report::Policy::AllowPartial
                } else if strict {
                    wheelport::report::Policy::Strict
                } else {
                    wheelport::report::Policy::Default
                },
                out_dir: out,
                source_date_epoch,
                progress: !quiet,
                lift_sass: sass == cli::SassMode::Lift,
                device_code: device_code.into(),
            };
            let pipeline = wheelport::device::Pipeline {
                toolchain: wheelport::toolchain::discover(profile, &search_options(&toolchain)),
                nvdisasm: wheelport::toolchain::discover_nvdisasm(&search_options(&toolchain)),
                cache: if std::env::var_os("WHEELPORT_NO_CACHE").is_some() {
                    None
                } else {
                    wheelport::build::Cache::default_dir().map(wheelport::build::Cache::new)
                },
                split_bytes: None,
            };
            let mut report = wheelport::convert::convert(&inputs, &opts, &pipeline)?;
            report.exit_code = exit::of_status(report.status);
            // The report file first: when it cannot be written the command fails, and the
            // terminal summary (which ends with the exit code) is not printed claiming another.
            if let Some(path) = json {
                let mut s = serde_json::to_string_pretty(&report).expect("report serializes");
                s.push('\n');
                wheelport::report::write::write_report(&path, s.as_bytes())?;
            }
            let text = wheelport::report::human::render(&report, all_kernels);
            if let Err(e) = std::io::stdout().lock().write_all(text.as_bytes()) {
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    return Err(wheelport::Error::io("<stdout>", e));
                }
            }
            for i in &report.inputs {
                if let Some(e) = &i.error {
                    match e.offset {
                        Some(o) => eprintln!(
                            "wheelport: error: {}: at offset {o:#x}: {}",
                            e.file, e.message
                        ),
                        None => eprintln!("wheelport: error: {}: {}", e.file, e.message),
                    }
                }
            }
            Ok(report.exit_code)
        }
        Command::Ptx {
            command: PtxCommand::Parse { files, print },
        } => {
            let mut out = std::io::stdout().lock();
            let errors = wheelport::ptx::cmd::parse_files(&files, print.as_deref(), &mut out)
                .map_err(|e| wheelport::Error::io("<ptx parse>", e))?;
            Ok(if errors > 0 {
                exit::PTX_ERRORS
            } else {
                exit::OK
            })
        }
        Command::Inspect {
            inputs,
            json,
            kernels,
            untranslatable,
            target,
            relink_tables,
            html,
        } => {
            let kernels = kernels || html.is_some();
            let untranslatable = untranslatable || html.is_some();
            let relink = match target {
                Some(t) => Some(std::sync::Arc::new(load_relink_table(
                    profile_of(&t)?,
                    &relink_tables,
                )?)),
                None => None,
            };
            let opts = wheelport::inspect::Options {
                kernels,
                untranslatable,
                relink,
                sass_decoder: untranslatable.then(|| {
                    wheelport::toolchain::discover_nvdisasm(
                        &wheelport::toolchain::SearchOptions::from_env(),
                    )
                }),
            };
            let report = wheelport::inspect::inspect_paths(&inputs, &opts)?;
            if let Some(path) = &html {
                wheelport::report::write::write_report(
                    path,
                    wheelport::inspect::html::render(&report).as_bytes(),
                )?;
            }
            let mut out = std::io::stdout().lock();
            let text = if json {
                let mut s = serde_json::to_string_pretty(&report).expect("report serializes");
                s.push('\n');
                s
            } else {
                wheelport::inspect::human::render(&report, kernels)
            };
            if let Err(e) = out.write_all(text.as_bytes()) {
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    return Err(wheelport::Error::io("<stdout>", e));
                }
            }
            if wheelport::inspect::has_errors(&report) {
                for e in report.inputs.iter().flat_map(|i| {
                    i.errors
                        .iter()
                        .chain(i.shared_objects.iter().flat_map(|s| s.errors.iter()))
                }) {
                    match e.offset {
                        Some(o) => eprintln!(
                            "wheelport: error: {}: at offset {o:#x}: {}",
                            e.file, e.message
                        ),
                        None => eprintln!("wheelport: error: {}: {}", e.file, e.message),
                    }
                }
                return Ok(exit::INPUT_ERROR);
            }
            Ok(exit::OK)
        }
    }
}

/// `wheelport sass lift`: every cubin of the inputs decoded and lifted, a summary per cubin.
fn sass_lift(
    inputs: &[std::path::PathBuf],
    out: Option<&std::path::Path>,
    only: Option<&str>,
    save_cubins: bool,
    tc: &cli::ToolchainArgs,
) -> Result<u8, wheelport::Error> {
    use wheelport::error::ErrorKind;
    let nvd = wheelport::toolchain::discover_nvdisasm(&search_options(tc)).map_err(|m| {
        wheelport::Error::new(
            ErrorKind::Toolchain,
            "<sass lift>",
            format!("nvdisasm: {}; install: {}", m.reason, m.install),
        )
    })?;
    if let Some(o) = out {
        std::fs::create_dir_all(o).map_err(|e| {
            wheelport::Error::new(ErrorKind::Io, o.display().to_string(), e.to_string())
        })?;
    }
    let mut objects: Vec<(String, Vec<u8>)> = Vec::new();
    for p in inputs {
        let disp = p.display().to_string();
        if p.extension().is_some_and(|e| e == "whl") {
            let mut w = wheelport::wheel::WheelReader::open(p)?;
            for name in w.member_names() {
                if !wheelport::wheel::is_elf_object_name(&name) {
                    continue;
                }
                let m = w.shared_object(&name)?;
                objects.push((m.display.clone(), m.map.to_vec()));
            }
        } else {
            let d = wheelport::input::map_regular(p)?.to_vec();
            objects.push((disp, d));
        }
    }
    let mut failed = false;
    let mut n = 0usize;
    let (mut total_i, mut total_dec, mut total_lift) = (0usize, 0f64, 0f64);
    let mut all_forms: std::collections::BTreeSet<String> = Default::default();
    let mut all_unlifted: std::collections::BTreeSet<String> = Default::default();
    for (file, data) in &objects {
        for c in wheelport::sass::cubins_of(data, file)? {
            if only.is_some_and(|a| a != c.arch)
                || wheelport::sass::lift::family_of(&c.arch).is_none()
            {
                continue;
            }
            let l = wheelport::sass::lift_cubin(&nvd, &c.bytes, &c.arch, &c.name)?;
            let lifted = l.kernels.iter().filter(|k| k.ptx.is_some()).count();
            total_i += l.instructions;
            total_dec += l.decode_s;
            total_lift += l.lift_s;
            all_forms.extend(l.forms.keys().cloned());
            let mut text = format!(
                "{} [{}]: {} kernels, {} lifted; {} instructions in {} forms; decode {:.3} s, lift {:.3} s\n",
                c.name,
                c.arch,
                l.kernels.len(),
                lifted,
                l.instructions,
                l.forms.len(),
                l.decode_s,
                l.lift_s
            );
            let mut agg: std::collections::BTreeMap<String, (usize, usize, String)> =
                Default::default();
            for k in &l.kernels {
                for (f, (cnt, _, why)) in k.unlifted_forms() {
                    let e = agg.entry(f).or_insert((0, 0, why));
                    e.0 += cnt;
                    e.1 += 1;
                }
            }
            all_unlifted.extend(agg.keys().cloned());
            for (f, (cnt, ks, why)) in &agg {
                text.push_str(&format!(
                    "  not lifted: {f}: {cnt} instructions in {ks} kernels ({why})\n"
                ));
            }
            write_stdout(&text)?;
            failed |= lifted < l.kernels.len();
            if let (Some(o), true) = (out, save_cubins) {
                let path = o.join(format!("{n}-{}.cubin", c.arch));
                std::fs::write(&path, &c.bytes).map_err(|e| {
                    wheelport::Error::new(ErrorKind::Io, path.display().to_string(), e.to_string())
                })?;
            }
            if let (Some(o), Some(m)) = (out, l.module()) {
                let path = o.join(format!("{n}-{}.ptx", c.arch));
                std::fs::write(&path, m).map_err(|e| {
                    wheelport::Error::new(ErrorKind::Io, path.display().to_string(), e.to_string())
                })?;
            }
            n += 1;
        }
    }
    write_stdout(&format!(
        "total: {n} cubins, {total_i} instructions in {} forms, {} of them not lifted; decode {total_dec:.3} s, lift {total_lift:.3} s\n",
        all_forms.len(),
        all_unlifted.len()
    ))?;
    Ok(if failed { exit::NOT_LOWERED } else { exit::OK })
}
