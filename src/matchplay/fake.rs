//! In-process fake players for the referee's and the runner's unit tests (test builds only).
//!
//! A [`Fake`] keeps its own [`Game`] from the commands it receives, so it can play legal
//! moves, and misbehaves on purpose according to its [`Policy`]: illegal answers, wrong
//! passes, sleeping past its clock when ahead, crashing, resigning, refusing moves.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use super::player::{Capabilities, DrawAnswer, Fault, GameSetup, Player};
use crate::othello::game::Game;
use crate::othello::square::{Color, Move};

/// How a fake chooses its `genmove` answer.
#[derive(Clone, Debug)]
pub enum Policy {
    /// The first legal move in square order.
    FirstLegal,
    /// The last legal move in square order.
    LastLegal,
    /// Always this text (`a1`, `pass`, `resign`, `z9`…).
    Answer(&'static str),
    /// First legal moves, but sleeps this long before answering when ahead in discs.
    SleepWhenAhead(Duration),
    /// First legal moves, then "crashes" at this genmove of the game (1 = first), until
    /// restarted.
    CrashAt(u32),
    /// First legal moves, but refuses every `play` from the opponent.
    RefusePlay,
    /// First legal moves at once, but sleeps this long in every `play` and `time_left`.
    SlowCommands(Duration),
    /// First legal moves, each after sleeping this long (every `genmove` takes at least it).
    SleepEachMove(Duration),
}

/// A scripted player.
pub struct Fake {
    caps: Capabilities,
    game: Game,
    policy: Policy,
    accept_draws: bool,
    crashed: bool,
    genmoves_this_game: u32,
    /// Every command received, as GTP-like text (`play b f5`, `genmove w`, `draw_offer b`).
    pub log: Vec<String>,
    /// The colour of the last `new_game`.
    pub color: Option<Color>,
    /// The clock the last `new_game` told this player (its `time_settings`), ms.
    pub told_clock_ms: Option<u64>,
    /// Restarts, shared so tests can read them after the runner drops the player.
    pub restarts: Arc<AtomicU32>,
}

impl Fake {
    /// A fake named `name` with `policy`; `accept_draws` answers every draw question with
    /// accept (and so offers whenever asked).
    pub fn new(name: &str, policy: Policy, accept_draws: bool) -> Fake {
        Fake {
            caps: Capabilities {
                name: name.to_string(),
                draw_offer: true,
                handicap: true,
                time_settings: true,
                time_left: true,
            },
            game: Game::new(),
            policy,
            accept_draws,
            crashed: false,
            genmoves_this_game: 0,
            log: Vec::new(),
            color: None,
            told_clock_ms: None,
            restarts: Arc::new(AtomicU32::new(0)),
        }
    }

    /// The fake's own view of the game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    fn slow(&self) {
        if let Policy::SlowCommands(d) = self.policy {
            std::thread::sleep(d);
        }
    }

    fn alive(&self) -> Result<(), Fault> {
        if self.crashed {
            Err(Fault::Exited("not running".to_string()))
        } else {
            Ok(())
        }
    }
}

fn letter(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

impl Player for Fake {
    fn capabilities(&self) -> &Capabilities {
        &self.caps
    }

    fn restart(&mut self) -> Result<(), Fault> {
        self.restarts.fetch_add(1, Ordering::SeqCst);
        self.crashed = false;
        self.game = Game::new();
        self.log.push("restart".to_string());
        Ok(())
    }

    fn new_game(
        &mut self,
        setup: &GameSetup,
        color: Color,
        _timeout: Duration,
    ) -> Result<(), Fault> {
        self.alive()?;
        self.log.push("new_game".to_string());
        self.genmoves_this_game = 0;
        self.color = Some(color);
        self.told_clock_ms = self.caps.time_settings.then(|| setup.clock_ms(color));
        self.game = Game::from_position(setup.start);
        for &(c, m) in &setup.opening {
            self.game.play(c, m).map_err(|e| Fault::Refused {
                command: format!("play {} {m}", letter(c)),
                message: e.to_string(),
            })?;
        }
        Ok(())
    }

    fn time_left(&mut self, color: Color, ms: u64, _timeout: Duration) -> Result<(), Fault> {
        self.alive()?;
        self.log.push(format!("time_left {} {ms}", letter(color)));
        self.slow();
        Ok(())
    }

    fn play(&mut self, color: Color, mv: Move, _timeout: Duration) -> Result<(), Fault> {
        self.alive()?;
        let cmd = format!("play {} {mv}", letter(color));
        self.log.push(cmd.clone());
        self.slow();
        if matches!(self.policy, Policy::RefusePlay) {
            return Err(Fault::Refused {
                command: cmd,
                message: "not today".to_string(),
            });
        }
        self.game.play(color, mv).map_err(|e| Fault::Refused {
            command: cmd,
            message: e.to_string(),
        })
    }

    fn genmove(&mut self, color: Color, _timeout: Duration) -> Result<String, Fault> {
        self.alive()?;
        self.log.push(format!("genmove {}", letter(color)));
        self.genmoves_this_game += 1;
        self.game
            .prepare_turn(color)
            .map_err(|e| Fault::Protocol(e.to_string()))?;
        let moves = self.game.legal_moves();
        let first = moves.first().map_or(Move::Pass, |&s| Move::Play(s));
        let mv = match &self.policy {
            Policy::FirstLegal | Policy::RefusePlay | Policy::SlowCommands(_) => first,
            Policy::LastLegal => moves.last().map_or(Move::Pass, |&s| Move::Play(s)),
            Policy::Answer(text) => return Ok(text.to_string()),
            Policy::SleepWhenAhead(d) => {
                let (b, w) = self.game.disc_counts();
                let ahead = match color {
                    Color::Black => b > w,
                    Color::White => w > b,
                };
                if ahead {
                    std::thread::sleep(*d);
                }
                first
            }
            Policy::SleepEachMove(d) => {
                std::thread::sleep(*d);
                first
            }
            Policy::CrashAt(n) => {
                if self.genmoves_this_game >= *n {
                    self.crashed = true;
                    return Err(Fault::Exited("exit status 3".to_string()));
                }
                first
            }
        };
        self.game
            .play(color, mv)
            .map_err(|e| Fault::Protocol(e.to_string()))?;
        Ok(mv.to_string())
    }

    fn draw_offer(&mut self, offering: Color, _timeout: Duration) -> Result<DrawAnswer, Fault> {
        self.alive()?;
        self.log.push(format!("draw_offer {}", letter(offering)));
        Ok(if self.accept_draws {
            DrawAnswer::Accept
        } else {
            DrawAnswer::Decline
        })
    }

    fn check_handicap(&mut self, _color: Color, _n: u32, _timeout: Duration) -> Result<(), String> {
        if self.caps.handicap {
            Ok(())
        } else {
            Err("unknown command".to_string())
        }
    }

    fn quit(&mut self) {
        self.log.push("quit".to_string());
    }
}
