//! Architecture packages as callers read them: the live packages, one with its manifest's
//! text, and the packages that fit a project's description.

use std::sync::Arc;

use skillpath_core::package::{Package, fit};

use crate::app::App;
use crate::catalog::CatalogSkill;
use crate::content::SkillContent;
use crate::error::AppError;
use crate::rules::{Operation, Permit};

/// A package that fits a project's description, best first ([`fit::rank`]).
#[derive(Debug, Clone)]
pub struct PackageFit {
    /// The package's manifest.
    pub package: Package,
    /// Higher fits better; above 0.
    pub score: f64,
    /// Why it fits, in a sentence.
    pub why: String,
    /// The description's words the package has.
    pub matched: Vec<String>,
}

impl<E> App<E> {
    /// The live packages, by name.
    pub fn architectures(&self, permit: &Permit) -> Result<Vec<Arc<CatalogSkill<E>>>, AppError> {
        self.permitted(permit, Operation::ListArchitectures)?;
        Ok(self.catalog().packages().cloned().collect())
    }

    /// The live package `name` and its content (its manifest's text and pages); a name that
    /// is no package's, or a skill's, is [`AppError::NotAPackage`].
    pub async fn architecture(
        &self,
        permit: &Permit,
        name: &str,
    ) -> Result<(Arc<CatalogSkill<E>>, Arc<SkillContent>), AppError> {
        self.permitted(permit, Operation::GetArchitecture)?;
        let catalog = self.catalog();
        let Some(package) = catalog.package(name) else {
            let is_skill = catalog.skill(name).is_some();
            let name = name.to_owned();
            return Err(AppError::NotAPackage { name, is_skill });
        };
        let content = self.content(package).await?;
        Ok((Arc::clone(package), content))
    }

    /// The packages whose manifest reads that fit `description`, best first, and how many
    /// such packages there are.
    pub fn analyze_requirements(
        &self,
        permit: &Permit,
        description: &str,
    ) -> Result<(Vec<PackageFit>, usize), AppError> {
        self.permitted(permit, Operation::AnalyzeRequirements)?;
        let packages: Vec<Package> = self
            .catalog()
            .packages()
            .filter_map(|package| package.manifest.as_deref().cloned())
            .collect();
        let fits = fit::rank(&packages, description)
            .into_iter()
            .map(|fit| PackageFit {
                package: fit.package.clone(),
                score: fit.score,
                why: fit.why(),
                matched: fit.matched,
            })
            .collect();
        Ok((fits, packages.len()))
    }
}
