//! The GPU mirror of one instance bucket: a buffer of transforms that grows by doubling
//! (allocate, copy the live range on the GPU, swap) and receives only the slots that
//! changed. Each frame, the visible runs of its slots are copied on the GPU into each
//! view's instance buffer.

use std::ops::Range;

use glam::Mat4;
use rend3::Renderer;
use wgpu::{Buffer, BufferUsages, CommandEncoderDescriptor};

use super::blocks::SlotBlocks;
use super::pipelines::{instance_buffer, INSTANCE_STRIDE};

pub struct GpuBucket {
    pub buffer: Buffer,
    /// Slots the buffer holds.
    pub capacity: usize,
    /// Live instances, in slots `0..count`.
    pub count: usize,
    /// Where the live slots' instances stand, block by block, for culling.
    pub blocks: SlotBlocks,
}

impl GpuBucket {
    fn allocate(renderer: &Renderer, capacity: usize) -> Buffer {
        instance_buffer(
            renderer,
            "prop instances",
            capacity,
            BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
        )
    }

    pub fn new(renderer: &Renderer, capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            buffer: Self::allocate(renderer, capacity),
            capacity,
            count: 0,
            blocks: SlotBlocks::default(),
        }
    }

    /// Makes room for `capacity` slots, keeping the live ones.
    pub fn reserve(&mut self, renderer: &Renderer, capacity: usize) {
        if capacity <= self.capacity {
            return;
        }
        let bigger = Self::allocate(renderer, capacity);
        if self.count > 0 {
            let mut encoder = renderer
                .device
                .create_command_encoder(&CommandEncoderDescriptor {
                    label: Some("grow instances"),
                });
            encoder.copy_buffer_to_buffer(
                &self.buffer,
                0,
                &bigger,
                0,
                self.count as u64 * INSTANCE_STRIDE,
            );
            // Submitted now, so later queue writes (which run at the next submission)
            // land after the copy.
            renderer.queue.submit(Some(encoder.finish()));
        }
        self.buffer = bigger;
        self.capacity = capacity;
    }

    /// Uploads the slots in `dirty` from `transforms` (the bucket's dense array), takes
    /// `live` as the live count and brings the blocks' bounds up to date.
    pub fn write(
        &mut self,
        renderer: &Renderer,
        transforms: &[Mat4],
        dirty: &[Range<u32>],
        live: usize,
    ) {
        for run in dirty {
            let run = run.start as usize..(run.end as usize).min(transforms.len());
            if run.is_empty() {
                continue;
            }
            renderer.queue.write_buffer(
                &self.buffer,
                run.start as u64 * INSTANCE_STRIDE,
                bytemuck::cast_slice(&transforms[run]),
            );
        }
        self.count = live;
        self.blocks.update(transforms, dirty, live);
    }
}
