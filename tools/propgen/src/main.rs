//! `sylva-propgen [--out DIR]`: writes the prop kit (default `assets`) and lists each
//! file with its size and the triangle count of every primitive.

use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;

#[derive(Parser)]
#[command(about = "Generates sylva's CC0 prop kit as GLB files")]
struct Args {
    /// The assets folder to write `<category>/<prop>.glb` files into.
    #[arg(long, default_value = "assets")]
    out: PathBuf,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let assets = sylva_propgen::write_all(&args.out)
        .with_context(|| format!("generating the prop kit into {}", args.out.display()))?;
    for asset in &assets {
        let [x, y, z] = asset.size;
        println!(
            "{}  {} bytes  {x:.2} × {y:.2} × {z:.2} m",
            args.out.join(&asset.relative_path).display(),
            asset.bytes.len()
        );
        for p in &asset.primitives {
            println!(
                "    {:<16} {:<16} {:>6} triangles",
                p.mesh, p.material, p.triangles
            );
        }
    }
    let total: usize = assets
        .iter()
        .flat_map(|a| &a.primitives)
        .map(|p| p.triangles)
        .sum();
    println!("{} files, {total} triangles", assets.len());
    Ok(())
}
