use thiserror::Error;

/// Why the placement registry refused a request. Nothing was changed when one is returned.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RegistryError {
    #[error("placement {id} is already registered")]
    DuplicatePlacement { id: u64 },
    #[error("no placement {id} is registered")]
    UnknownPlacement { id: u64 },
    #[error("prop key {key} was not interned by this registry")]
    UnknownProp { key: u32 },
    #[error("a prop shape needs at least one part and one LOD, got {parts} parts and {lods} LODs")]
    EmptyShape { parts: u16, lods: u8 },
    #[error("a prop shape has at most {max} LODs, got {lods}")]
    TooManyLods { lods: u8, max: u8 },
    #[error("LOD level {level} is out of range: levels go from 0 to {max}")]
    LevelOutOfRange { level: u8, max: u8 },
    #[error("placement {id} has a non-finite transform")]
    NonFiniteTransform { id: u64 },
    #[error("the registry holds at most {limit} placements")]
    Full { limit: u32 },
}
