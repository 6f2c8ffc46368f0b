//! The incremental bake of an assets folder into a cache folder: every prop whose
//! entry or one of its texture blobs is missing or corrupt is baked (in parallel), the
//! rest is left alone; the manifest is rewritten only when it changes; entries whose
//! source is gone, and blobs no listed entry names, are removed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;
use sylva_cache::store::write_atomically;
use sylva_cache::{
    CacheDir, CacheKey, Entry, Fetched, LockedAsset, LockedFile, Lockfile, Manifest, ManifestEntry,
    ObjectStore, PropFiles, PropView, RemotePass, StoreError, TextureId,
};
use sylva_catalog::{folder::read_snapshot, CatalogFile, Prop};
use sylva_mesh::{AlphaMode, Material};
use thiserror::Error;

use crate::asset::{bake_asset, AssetReport};
use crate::key::{key_of, settings_hash, versions};
use crate::settings::BakeSettings;
use crate::shard::Shard;
use crate::source::{read_source, source_files, AssetError};

/// Temporary files this old in the cache folder were left by a killed bake.
const STALE_TEMPORARY_AGE: Duration = Duration::from_secs(60);

/// Why a whole bake could not run (a single asset's failure is in its outcome).
#[derive(Debug, Error)]
pub enum FolderError {
    #[error(transparent)]
    Folder(#[from] sylva_catalog::folder::FolderError),
    #[error(transparent)]
    Catalog(#[from] sylva_catalog::CatalogError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What happened to one asset.
#[derive(Debug)]
pub struct AssetOutcome {
    /// Relative to the assets folder.
    pub path: String,
    pub prop_id: String,
    pub status: Status,
    /// What its entry holds, when it has a good one after this pass.
    pub summary: Option<EntrySummary>,
}

/// The shape of an entry, for reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EntrySummary {
    /// Size of the entry file.
    pub bytes: usize,
    /// What the renderer uploads for the prop, texels as stored (block formats as
    /// blocks).
    pub gpu: GpuBytes,
    /// The sphere holding every vertex, prop space.
    pub sphere: SphereSummary,
    pub parts: Vec<PartSummary>,
    /// The texture blobs the entry names, in its order (the impostor's atlases too).
    pub textures: Vec<TextureSummary>,
    pub impostor: ImpostorSummary,
}

/// A prop's bytes on the GPU, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct GpuBytes {
    pub vertices: usize,
    pub indices: usize,
    /// Material textures, all levels.
    pub textures: usize,
    /// Impostor atlases, all levels.
    pub atlases: usize,
    pub total: usize,
}

/// The prop's impostor as its entry records it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ImpostorSummary {
    Baked {
        /// Views per side of the hemi-octahedral grid.
        grid: u32,
        /// Texels per side of a view at level 0.
        cell_px: u32,
        /// Mip levels of each atlas.
        levels: usize,
        /// The atlas blobs' files.
        bytes: usize,
        /// How far it strays from the mesh, metres (`ImpostorView::error_m`).
        error_m: f32,
        /// A texel of a view at level 0, metres (the sphere's diameter over `cell_px`).
        texel_m: f32,
    },
    /// No impostor: the coarsest mesh is the last level.
    Refused { reason: String },
}

/// A bounding sphere, prop space.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SphereSummary {
    pub center: [f32; 3],
    pub radius: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TextureSummary {
    /// The blob file (`<BLAKE3 of its bytes>.sylvatex`), shared by every prop using it.
    pub file: String,
    pub width: u32,
    pub height: u32,
    pub levels: usize,
    /// How its texels are stored (`Bc1Srgb`, `Bc5` …).
    pub format: String,
    /// Size of the blob file.
    pub bytes: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PartSummary {
    pub name: String,
    pub vertices: u32,
    /// Per level, full mesh first.
    pub triangles: Vec<u32>,
    /// Per level, full mesh first: meshoptimizer's error relative to the part's extent.
    pub error: Vec<f32>,
    /// Per level, full mesh first: how far the level strays from the full mesh, metres.
    pub error_m: Vec<f32>,
    pub material: MaterialSummary,
}

/// What a part's material carries: its factors and, per channel, its texture.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MaterialSummary {
    pub name: String,
    /// `opaque`, `mask` or `blend`.
    pub alpha: &'static str,
    pub double_sided: bool,
    pub base_color: [f32; 4],
    pub metallic: f32,
    pub roughness: f32,
    pub emissive: [f32; 3],
    /// The textured channels (glTF's names, e.g. `normalTexture`) and their blob files.
    pub textures: Vec<ChannelTexture>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChannelTexture {
    pub channel: &'static str,
    pub file: String,
}

impl MaterialSummary {
    fn of(material: &Material, textures: &[TextureId]) -> Self {
        MaterialSummary {
            name: material.name.clone(),
            alpha: match material.alpha_mode {
                AlphaMode::Opaque => "opaque",
                AlphaMode::Mask { .. } => "mask",
                AlphaMode::Blend => "blend",
            },
            double_sided: material.double_sided,
            base_color: material.base_color_factor,
            metallic: material.metallic_factor,
            roughness: material.roughness_factor,
            emissive: material.emissive_factor,
            textures: material
                .textured_channels()
                .map(|(channel, binding)| ChannelTexture {
                    channel: channel.gltf_name(),
                    file: textures[binding.texture as usize].file_name(),
                })
                .collect(),
        }
    }
}

impl EntrySummary {
    /// The summary of parsed prop files.
    pub fn of(prop: &PropView<'_>, files: &PropFiles) -> Self {
        let entry = &prop.entry;
        let parts: Vec<PartSummary> = entry
            .parts
            .iter()
            .map(|p| PartSummary {
                name: p.name.to_owned(),
                vertices: p.vertex_count,
                triangles: p.levels.iter().map(|l| l.triangle_count()).collect(),
                error: p.levels.iter().map(|l| l.error).collect(),
                error_m: p.levels.iter().map(|l| l.error_m).collect(),
                material: MaterialSummary::of(&p.material, &entry.textures),
            })
            .collect();
        let vertices = entry.parts.iter().map(|p| p.vertex_bytes.len()).sum();
        let indices = entry
            .parts
            .iter()
            .flat_map(|p| &p.levels)
            .map(|l| l.index_bytes.len())
            .sum();
        let atlases = entry
            .impostor()
            .map(|view| view.atlases())
            .unwrap_or_default();
        let (mut textures_gpu, mut atlases_gpu) = (0, 0);
        for (i, view) in prop.textures.iter().enumerate() {
            let bytes: usize = view.levels.iter().map(|l| l.len()).sum();
            if atlases.contains(&(i as u32)) {
                atlases_gpu += bytes;
            } else {
                textures_gpu += bytes;
            }
        }
        let gpu = GpuBytes {
            vertices,
            indices,
            textures: textures_gpu,
            atlases: atlases_gpu,
            total: vertices + indices + textures_gpu + atlases_gpu,
        };
        let textures = entry
            .textures
            .iter()
            .zip(&prop.textures)
            .zip(&files.textures)
            .map(|((id, view), bytes)| TextureSummary {
                file: id.file_name(),
                width: view.width,
                height: view.height,
                levels: view.levels.len(),
                format: format!("{:?}", view.format),
                bytes: bytes.len(),
            })
            .collect();
        let impostor = match (entry.impostor(), entry.impostor_refusal()) {
            (Some(view), _) => ImpostorSummary::Baked {
                grid: view.grid,
                cell_px: view.cell_px,
                levels: prop.textures[view.albedo as usize].levels.len(),
                bytes: view
                    .atlases()
                    .iter()
                    .map(|&t| files.textures[t as usize].len())
                    .sum(),
                error_m: view.error_m,
                texel_m: 2.0 * view.sphere.radius / view.cell_px as f32,
            },
            (None, reason) => ImpostorSummary::Refused {
                reason: reason.unwrap_or_default().to_owned(),
            },
        };
        EntrySummary {
            bytes: files.entry.len(),
            gpu,
            sphere: SphereSummary {
                center: entry.sphere.center,
                radius: entry.sphere.radius,
            },
            parts,
            textures,
            impostor,
        }
    }
}

#[derive(Debug)]
pub enum Status {
    /// Its entry was present, intact and of the current key.
    Current,
    Baked {
        /// Boxed: the report is most of the enum's size.
        report: Box<AssetReport>,
        /// The entry file written.
        entry: String,
        micros: u128,
        /// Why an entry the cache held for the asset was not kept, when it held one that
        /// does not parse: written by another version of the format (its manifest line,
        /// or the file under today's name) or corrupt.
        replaced: Option<String>,
    },
    /// Its entry came from the remote cache, verified, and is now in the local one.
    Fetched {
        /// The entry file written.
        entry: String,
        micros: u128,
    },
    Failed {
        error: AssetError,
        /// The key of the failing content, when the sources could be read.
        key: Option<CacheKey>,
    },
    /// Failed before with the same content (see [`BakeOptions::known_failures`]).
    StillFailing,
}

#[derive(Debug, Default)]
pub struct FolderReport {
    /// Every prop (of the shard, when sharded), in catalog order.
    pub assets: Vec<AssetOutcome>,
    /// Entry and texture blob files deleted because no asset refers to them any more.
    pub removed_entries: Vec<String>,
    /// Assets dropped from the manifest because their source is gone.
    pub removed_assets: Vec<String>,
    pub manifest_written: bool,
    /// The lockfile of this bake (written when [`Sharing::lock`] names a file).
    pub lock: Option<Lockfile>,
    pub lock_written: bool,
    /// Files uploaded to the remote cache (entries, blobs and key records).
    pub uploaded: usize,
    /// Remote files refused because they are not what their name or the lockfile
    /// says: (asset path, why). The asset was baked instead.
    pub refused: Vec<(String, String)>,
    /// What went wrong without stopping the bake (a remote cache that failed, an
    /// unreadable lockfile that is rewritten).
    pub warnings: Vec<String>,
}

impl FolderReport {
    /// Assets baked by this pass (the JSON report's `built`).
    pub fn baked(&self) -> usize {
        self.count(|s| matches!(s, Status::Baked { .. }))
    }

    /// Assets whose entry this pass took from the remote cache.
    pub fn fetched(&self) -> usize {
        self.count(|s| matches!(s, Status::Fetched { .. }))
    }

    pub fn current(&self) -> usize {
        self.count(|s| matches!(s, Status::Current))
    }

    pub fn failed(&self) -> usize {
        self.count(|s| matches!(s, Status::Failed { .. } | Status::StillFailing))
    }

    fn count(&self, f: impl Fn(&Status) -> bool) -> usize {
        self.assets.iter().filter(|a| f(&a.status)).count()
    }
}

/// Where a bake shares its results beyond the local cache.
#[derive(Clone, Copy, Default)]
pub struct Sharing<'a> {
    /// A remote cache, looked up for every asset the local cache lacks before it is
    /// baked.
    pub remote: Option<&'a dyn ObjectStore>,
    /// Upload to the remote cache what this pass has that it lacks.
    pub remote_write: bool,
    /// The lockfile: the entry hashes it records are what a remote file must hash to,
    /// and the bake rewrites it (only when its text changes).
    pub lock: Option<&'a Path>,
}

#[derive(Default)]
pub struct BakeOptions<'a> {
    /// Assets that failed with these keys are not retried until their content changes
    /// (the watcher passes what failed before).
    pub known_failures: BTreeMap<String, CacheKey>,
    /// Called after each asset with (done, total), from any thread.
    pub progress: Option<&'a (dyn Fn(usize, usize) + Sync)>,
    /// The remote cache and the lockfile.
    pub sharing: Sharing<'a>,
    /// Bake only this share of the assets: nothing is removed, and neither the
    /// manifest nor the lockfile is written (a later whole bake writes them).
    pub shard: Option<Shard>,
}

/// Bakes what is not current. Parallel over assets with rayon; the result does not
/// depend on the thread count.
pub fn bake_folder(
    assets: &Path,
    cache: &CacheDir,
    options: &BakeOptions<'_>,
) -> Result<FolderReport, FolderError> {
    let snapshot = read_snapshot(assets)?;
    let (catalog, _) = snapshot.resolve()?;
    let old = cache.read_manifest().unwrap_or_default();
    let mut report = FolderReport::default();
    let old_lock = match options.sharing.lock.map(read_lock).transpose() {
        Ok(lock) => lock.flatten(),
        Err(warning) => {
            report.warnings.push(warning);
            None
        }
    };
    let remote = options
        .sharing
        .remote
        .map(|store| RemotePass::new(store, options.sharing.remote_write));
    let context = Context {
        assets,
        cache,
        file: &snapshot.file,
        old: &old,
        old_lock: old_lock.as_ref(),
        remote: remote.as_ref(),
        options,
    };
    let props: Vec<&Prop> = catalog
        .props()
        .iter()
        .filter(|p| options.shard.is_none_or(|shard| shard.holds(&p.file)))
        .collect();
    let done = AtomicUsize::new(0);
    let total = props.len();
    let results: Vec<Baked> = props
        .par_iter()
        .map(|prop| {
            let category = &catalog.categories()[prop.category].name;
            let result = bake_one(&context, category, prop);
            let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(progress) = options.progress {
                progress(finished, total);
            }
            result
        })
        .collect();

    let mut manifest = Manifest::new();
    let mut lock = Lockfile::new(versions());
    for baked in results {
        if let Some(entry) = baked.listing {
            manifest.assets.insert(baked.outcome.path.clone(), entry);
        }
        if let Some(locked) = baked.locked {
            lock.assets.insert(baked.outcome.path.clone(), locked);
        }
        if let Some(reason) = baked.refused {
            report.refused.push((baked.outcome.path.clone(), reason));
        }
        report.assets.push(baked.outcome);
    }
    if let Some(remote) = &remote {
        report.uploaded = remote.uploaded();
        report.warnings.extend(remote.warnings());
    }
    if options.shard.is_some() {
        return Ok(report);
    }
    report.removed_assets = old
        .assets
        .keys()
        .filter(|path| !report.assets.iter().any(|a| &a.path == *path))
        .cloned()
        .collect();
    if manifest != old || !cache.manifest_path().exists() {
        cache.write_manifest(&manifest)?;
        report.manifest_written = true;
    }
    if let Some(path) = options.sharing.lock {
        let text = lock.to_ron();
        if std::fs::read(path).ok().as_deref() != Some(text.as_bytes()) {
            write_atomically(path, text.as_bytes()).map_err(|source| StoreError::Io {
                path: path.to_owned(),
                source,
            })?;
            report.lock_written = true;
        }
        report.lock = Some(lock);
    }
    for name in cache.entry_files()? {
        if !manifest.assets.values().any(|e| e.entry == name) {
            cache.remove_entry(&name)?;
            report.removed_entries.push(name);
        }
    }
    let named = textures_named(cache, &manifest);
    for name in cache.texture_files()? {
        if !named.contains(&name) {
            cache.remove_entry(&name)?;
            report.removed_entries.push(name);
        }
    }
    cache.remove_stale_temporaries(STALE_TEMPORARY_AGE)?;
    Ok(report)
}

/// The lockfile at `path`; `None` when there is none yet, a warning when it does not
/// parse (the bake writes a good one).
fn read_lock(path: &Path) -> Result<Option<Lockfile>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Lockfile::parse(&text)
            .map(Some)
            .map_err(|e| format!("{}: {e}; it is rewritten", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}; it is rewritten", path.display())),
    }
}

/// What every asset's bake reads.
struct Context<'a> {
    assets: &'a Path,
    cache: &'a CacheDir,
    file: &'a CatalogFile,
    old: &'a Manifest,
    old_lock: Option<&'a Lockfile>,
    remote: Option<&'a RemotePass<'a>>,
    options: &'a BakeOptions<'a>,
}

/// One asset's result.
struct Baked {
    outcome: AssetOutcome,
    /// Its manifest entry afterwards (the previous one when it failed, so the runtime
    /// keeps the last good geometry).
    listing: Option<ManifestEntry>,
    /// Its lockfile record afterwards (the previous one when it failed).
    locked: Option<LockedAsset>,
    /// Why the remote's copy was refused, when it was.
    refused: Option<String>,
}

/// The blob files the manifest's entries name (an entry that cannot be read names none:
/// its asset re-bakes and writes its blobs again).
pub(crate) fn textures_named(cache: &CacheDir, manifest: &Manifest) -> BTreeSet<String> {
    manifest
        .assets
        .values()
        .filter_map(|listed| cache.read_entry(&listed.entry).ok())
        .filter_map(|bytes| Some(Entry::parse(&bytes).ok()?.textures))
        .flatten()
        .map(|id| id.file_name())
        .collect()
}

/// One asset: read its sources, then take its entry from the local cache, else from
/// the remote one, else bake it.
fn bake_one(context: &Context<'_>, category: &str, prop: &Prop) -> Baked {
    let Context { assets, cache, .. } = *context;
    let previous = context.old.assets.get(&prop.file);
    let previous_lock = context.old_lock.and_then(|l| l.assets.get(&prop.file));
    let outcome = |status, summary| AssetOutcome {
        path: prop.file.clone(),
        prop_id: prop.id.to_string(),
        status,
        summary,
    };
    let failed = |status| Baked {
        outcome: outcome(status, None),
        listing: previous.cloned(),
        locked: previous_lock.cloned(),
        refused: None,
    };
    let settings = BakeSettings::for_prop(context.file, category, &prop.id);
    let source = match read_source(assets, prop) {
        Ok(source) => source,
        Err(error) => return failed(Status::Failed { error, key: None }),
    };
    // Hashed once: the key is made of them, and the lockfile records them.
    let (source_hash, settings_hash) = (source.source_hash(), settings_hash(&settings));
    let key = key_of(source_hash, settings_hash);
    if context.options.known_failures.get(&prop.file) == Some(&key) {
        return failed(Status::StillFailing);
    }
    let name = key.file_name();
    let listing = ManifestEntry {
        prop: prop.id.to_string(),
        entry: name.clone(),
        key: key.to_hex(),
        revision: match previous {
            Some(p) if p.key == key.to_hex() => p.revision,
            Some(p) => p.revision + 1,
            None => 1,
        },
        sources: source_files(&source),
    };
    let locked = |files: &PropFiles| LockedAsset {
        prop: prop.id.to_string(),
        source: source_hash,
        settings: settings_hash,
        key: key.into(),
        entry: LockedFile::of(&files.entry),
        textures: files.textures.iter().map(|t| LockedFile::of(t)).collect(),
    };
    let done = |status, summary, files: &PropFiles, refused| Baked {
        outcome: outcome(status, Some(summary)),
        listing: Some(listing.clone()),
        locked: Some(locked(files)),
        refused,
    };
    // Entries are named after their key, so an intact entry under this name is the bake
    // of exactly these sources and settings, listed in the manifest or not (a bake
    // killed before writing the manifest leaves such entries; the next run keeps them).
    // Intact includes every blob it names: a missing or corrupt one re-bakes the asset.
    let on_disk = cache.read_prop(&name).ok();
    let intact = on_disk
        .as_ref()
        .and_then(|files| Some((EntrySummary::of(&files.parse().ok()?, files), files)));
    if let Some((summary, files)) = intact {
        if let Some(remote) = context.remote {
            remote.upload(key, files, false);
        }
        return done(Status::Current, summary, files, None);
    }
    let started = Instant::now();
    let mut refused = None;
    if let Some(remote) = context.remote {
        match remote.fetch(key, previous_lock, cache) {
            Fetched::Files(files) => match keep_fetched(cache, &name, &files) {
                Ok(summary) => {
                    let status = Status::Fetched {
                        entry: name.clone(),
                        micros: started.elapsed().as_micros(),
                    };
                    return done(status, summary, &files, None);
                }
                Err(reason) => refused = Some(reason),
            },
            Fetched::Refused { reason } => refused = Some(reason),
            Fetched::Absent | Fetched::Unavailable => {}
        }
    }
    let replaced = unreadable_entry(cache, &name, previous);
    let baked = bake_asset(&source, &settings).and_then(|(baked, report)| {
        let files = baked.files()?;
        let summary = EntrySummary::of(&files.parse()?, &files);
        baked.write(cache, &name, &files.entry)?;
        Ok((summary, report, files))
    });
    match baked {
        Ok((summary, report, files)) => {
            if let Some(remote) = context.remote {
                remote.upload(key, &files, refused.is_some());
            }
            let status = Status::Baked {
                report: Box::new(report),
                entry: name.clone(),
                micros: started.elapsed().as_micros(),
                replaced,
            };
            done(status, summary, &files, refused)
        }
        Err(error) => Baked {
            refused,
            ..failed(Status::Failed {
                error,
                key: Some(key),
            })
        },
    }
}

/// Why the entry the cache holds for an asset about to be baked cannot be kept, when it
/// holds one that does not parse: the file under today's name `name`, else the one the
/// manifest listed (`previous`) when it was written by another format version (an entry
/// of another key that parses is just an older bake: its sources or settings changed).
fn unreadable_entry(
    cache: &CacheDir,
    name: &str,
    previous: Option<&ManifestEntry>,
) -> Option<String> {
    if let Ok(bytes) = cache.read_entry(name) {
        if let Err(error) = Entry::parse(&bytes) {
            return Some(format!("its entry {name} was unreadable: {error}"));
        }
    }
    let previous = previous.filter(|p| p.entry != name)?;
    let bytes = cache.read_entry(&previous.entry).ok()?;
    match Entry::parse(&bytes) {
        Err(error @ sylva_cache::FormatError::UnsupportedVersion { .. }) => Some(format!(
            "its entry {} was of another format: {error}",
            previous.entry
        )),
        _ => None,
    }
}

/// Writes verified remote files into the local cache, blobs first, once they parse
/// together (each blob against its content address).
pub fn keep_fetched(
    cache: &CacheDir,
    name: &str,
    files: &PropFiles,
) -> Result<EntrySummary, String> {
    let view = files
        .parse()
        .map_err(|e| format!("the fetched entry does not parse: {e}"))?;
    let summary = EntrySummary::of(&view, files);
    let ids = view.entry.textures.clone();
    let written = ids
        .iter()
        .zip(&files.textures)
        .try_for_each(|(&id, bytes)| {
            cache.write_texture(&sylva_cache::TextureFile {
                id,
                bytes: bytes.clone(),
            })
        })
        .and_then(|()| cache.write_entry(name, &files.entry));
    written.map_err(|e| format!("keeping the fetched entry: {e}"))?;
    Ok(summary)
}
