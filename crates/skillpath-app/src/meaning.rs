//! Ranking by meaning beside the search (`serve --embeddings DIR`; the cargo feature
//! `embeddings`).
//!
//! With a static embedding model ([`skillpath_embed`]), every skill's vector is computed when
//! the catalog reads the skill ([`crate::catalog::CatalogSkill`]), so a start embeds the
//! library once, on every core, and a write embeds the one skill it changed. A search
//! ([`crate::catalog::Catalog::search`]: `search_skills`, the studio's, `skillpath search` and
//! `skillpath eval triggers`) asks the store for its [`skillpath_embed::POOL`] best hits and
//! fuses them with the skills the model finds nearest to the query
//! ([`skillpath_embed::fused`], the setting measured in BENCHMARKS.md). A skill only the model
//! found has no snippet: no word of the query matched it.
//!
//! Without a model (or built without the feature) the search answers alone, as it always has.

#[cfg(feature = "embeddings")]
use std::sync::Arc;

use skillpath_store::SearchHit;

/// The model skills are compared with queries by, if any.
#[derive(Clone, Default)]
pub struct Meaning {
    #[cfg(feature = "embeddings")]
    model: Option<Arc<skillpath_embed::StaticModel>>,
}

impl std::fmt::Debug for Meaning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.ranks() {
            "Meaning(model)"
        } else {
            "Meaning(none)"
        })
    }
}

impl Meaning {
    /// Ranking with `model` beside the search.
    #[cfg(feature = "embeddings")]
    pub fn new(model: skillpath_embed::StaticModel) -> Meaning {
        Meaning {
            model: Some(Arc::new(model)),
        }
    }

    /// Whether a model ranks beside the search.
    pub fn ranks(&self) -> bool {
        #[cfg(feature = "embeddings")]
        return self.model.is_some();
        #[cfg(not(feature = "embeddings"))]
        return false;
    }

    /// A skill's vector, or nothing without a model.
    #[cfg_attr(not(feature = "embeddings"), expect(unused_variables))]
    pub(crate) fn embed_skill(&self, name: &str, description: &str) -> Vec<f32> {
        #[cfg(feature = "embeddings")]
        if let Some(model) = &self.model {
            return model.embed_skill(name, description);
        }
        Vec::new()
    }

    /// How many hits to ask the search for to answer with `limit`: with a model, enough to
    /// fuse.
    pub(crate) fn pool(&self, limit: usize) -> usize {
        #[cfg(feature = "embeddings")]
        if self.model.is_some() {
            return limit.max(skillpath_embed::POOL);
        }
        limit
    }

    /// With a model, the names of `search` (the search's hits, best first) fused with those of
    /// `skills` (a name and its vector each) nearest to `query`; without one, nothing: the
    /// search's ranking stands.
    #[cfg_attr(not(feature = "embeddings"), expect(unused_variables))]
    pub(crate) fn rank<'a>(
        &self,
        query: &str,
        search: &[SearchHit],
        skills: impl IntoIterator<Item = (&'a str, &'a [f32])>,
    ) -> Option<Vec<String>> {
        #[cfg(feature = "embeddings")]
        if let Some(model) = &self.model {
            let search: Vec<String> = search.iter().map(|hit| hit.name.clone()).collect();
            let nearest = skillpath_embed::nearest(&model.embed(query), skills);
            return Some(skillpath_embed::fused(&search, &nearest));
        }
        None
    }
}
