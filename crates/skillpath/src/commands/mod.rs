//! One module per command; each takes its parsed arguments and returns an exit status.

mod audit;
mod catalog;
mod completions;
mod install;
mod login;
mod new;
mod read_properties;
mod render;
mod schema;
mod store;
mod to_prompt;
mod validate;

use crate::cli::{Cli, Command};
use crate::output::ExitStatus;

/// Runs the command the user asked for.
pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    match cli.command {
        Command::Validate(args) => validate::run(args),
        Command::ReadProperties(args) => read_properties::run(args),
        Command::ToPrompt(args) => to_prompt::run(args),
        Command::Catalog(args) => catalog::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Render(args) => render::run(args),
        Command::New(args) => new::run(args),
        Command::Import(args) => store::import::run(args),
        Command::Export(args) => store::export::run(args),
        Command::List(args) => store::inspect::list(args),
        Command::Show(args) => store::inspect::show(args),
        Command::Search(args) => store::inspect::search(args),
        Command::Eval(command) => store::eval::run(command),
        Command::History(args) => store::inspect::history(args),
        Command::Diff(args) => store::inspect::diff(args),
        Command::Rollback(args) => store::revise::rollback(args),
        Command::Fork(args) => store::revise::fork(args),
        Command::Delete(args) => store::revise::delete(args),
        Command::Restore(args) => store::revise::restore(args),
        Command::Scan(args) => store::scan::run(args),
        Command::Audit(args) => audit::run(args),
        Command::Serve(args) => store::serve::run(args),
        Command::Studio(args) => store::serve::studio(args),
        Command::Keys(args) => store::keys::run(args),
        Command::Login(args) => login::login(args),
        Command::Logout(args) => login::logout(args),
        Command::Users(args) => store::people::users(args),
        Command::Namespaces(args) => store::people::namespaces(args),
        Command::Members(args) => store::people::members(args),
        Command::Visibility(args) => store::people::visibility(args),
        Command::Star(args) => store::people::star(args, true),
        Command::Unstar(args) => store::people::star(args, false),
        Command::Log(args) => store::people::log(args),
        Command::Release(args) => store::releases::release(args),
        Command::Releases(args) => store::releases::releases(args),
        Command::Mirror(args) => store::mirror::run(args),
        Command::Yank(args) => store::releases::yank(args),
        Command::Tag(args) => store::releases::tag(args),
        Command::Upgrade(args) => store::upgrade::run(args),
        Command::Usage(args) => store::usage::run(args),
        Command::Review(args) => store::review::review(args),
        Command::Publish(args) => store::review::publish(args),
        Command::Reject(args) => store::review::reject(args),
        Command::Add(args) => install::add::run(args),
        Command::Sync(args) => install::sync::run(args),
        Command::Status(args) => install::status::run(args),
        Command::Update(args) => install::update::run(args),
        Command::Install(args) => install::frozen::run(args),
        Command::Remove(args) => install::remove::run(args),
        Command::Completions(args) => completions::run(args),
    }
}
