# ruff: noqa: E501  (a table of long test names)
"""Exploding Kittens's lines of RULES.md (section 1) with the tests proving each, and its tests of the
lines every game shares: read by tests/rules_coverage.py through the registry (tests/declared.py)."""

from __future__ import annotations

from tests.rules_coverage import E2E, HTTP_RULES, LEAKS, UNIT, Rule

EK = "domain/exploding_kittens/tests/"
SECTIONS = ("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9")

RULES: tuple[Rule, ...] = (
    Rule(
        "1.1",
        "56 cards: 4 Kittens, 6 Defuses, 4 Attack/Skip/Favor/Shuffle, 5 See the Future, 5 Nope, 5 Cat kinds x 4",
        (
            EK + "test_setup.py::test_1_1__setup_counts_table",
            EK + "test_properties.py::test_1_1__random_games_keep_every_invariant_and_end_with_one_winner",
        ),
    ),
    Rule(
        "1.2.option",
        "game option edition, default 2022",
        (EK + "test_setup.py::test_1_2_option__option_defaults",),
    ),
    Rule(
        "1.2.defuses",
        "Defuses back: 2022 2/2/2/1; classic 2 with 2 players, else 6 - players",
        (
            EK + "test_setup.py::test_1_2_defuses__three_players_2022_puts_two_defuses_back",
            EK + "test_setup.py::test_1_2_defuses__five_players_2022_puts_one_defuse_back",
            EK + "test_setup.py::test_1_2_defuses__classic_three_players_puts_all_remaining_defuses_back",
            EK + "test_setup.py::test_1_2_defuses__two_players_put_two_defuses_back_in_both_editions",
        ),
    ),
    Rule(
        "1.2.attack-victim",
        "Attack by a victim: 2022 remaining + 2; classic exactly 2",
        (
            EK + "test_turns.py::test_1_2_attack_victim__attack_on_first_of_two_attacked_turns_gives_four",
            EK + "test_turns.py::test_1_2_attack_victim__classic_edition_attack_on_attack_gives_two",
        ),
    ),
    Rule(
        "1.2.five-different",
        "five different only in classic with special combos",
        (
            EK
            + "test_actions.py::test_1_2_five_different__five_different_is_refused_in_2022_and_without_special_combos",
        ),
    ),
    Rule(
        "1.2.decision-seed-004",
        "2022 follows seed 004 (and the booklet), not seed 001's hybrid",
        (
            EK + "test_setup.py::test_1_1__setup_counts_table",
            EK
            + "test_turns.py::test_1_2_decision_seed_004__attack_on_second_of_two_attacked_turns_gives_three",
        ),
    ),
    Rule(
        "1.2.spare-defuses",
        "spare Defuses go into the deck after the deal: no hand starts with two",
        (
            EK
            + "test_setup.py::test_1_2_spare_defuses__each_hand_starts_with_exactly_one_defuse_and_no_kitten",
        ),
    ),
    Rule(
        "1.2.attack-ends-all",
        "Attack ends all of the player's owed turns (both editions)",
        (
            EK + "test_turns.py::test_1_2_attack_victim__attack_on_first_of_two_attacked_turns_gives_four",
            EK + "test_turns.py::test_1_2_attack_victim__classic_edition_attack_on_attack_gives_two",
        ),
    ),
    Rule(
        "1.2.no-faster-variant",
        "the faster 2-3 player variant is not implemented (full deck)",
        (EK + "test_setup.py::test_1_1__setup_counts_table",),
    ),
    Rule(
        "1.2.special-combos",
        "special_combos default true; off: only pairs of one Cat kind",
        (
            EK + "test_setup.py::test_1_2_option__option_defaults",
            EK
            + "test_actions.py::test_1_2_special_combos__without_special_combos_only_cat_pairs_are_allowed",
        ),
    ),
    Rule(
        "1.3.1-2",
        "set Kittens and Defuses aside; one Defuse to each player",
        (
            EK
            + "test_setup.py::test_1_2_spare_defuses__each_hand_starts_with_exactly_one_defuse_and_no_kitten",
        ),
    ),
    Rule(
        "1.3.3",
        "deal 7 face down to each player: 8 cards in hand",
        (EK + "test_setup.py::test_1_1__setup_counts_table",),
    ),
    Rule(
        "1.3.4",
        "Defuses back into the deck per edition; the rest leave the game",
        (EK + "test_setup.py::test_1_1__setup_counts_table",),
    ),
    Rule(
        "1.3.5",
        "insert exactly players - 1 Kittens; the rest leave the game",
        (EK + "test_setup.py::test_1_1__setup_counts_table",),
    ),
    Rule(
        "1.3.6-shuffle",
        "shuffle: the draw pile (committed, reproducible from the RNG)",
        (
            EK + "test_setup.py::test_1_3_6_shuffle__setup_commits_to_the_draw_pile_order",
            EK + "test_setup.py::test_1_3_6_shuffle__setup_is_reproducible_from_the_rng",
        ),
    ),
    Rule(
        "1.3.6-first-seat",
        "the first seat is random, or given by the creator",
        (
            EK + "test_setup.py::test_1_3_6_first_seat__first_seat_is_random_when_not_given",
            EK + "test_setup.py::test_1_3_6_first_seat__first_seat_given_by_creator_is_used",
        ),
    ),
    Rule(
        "1.3.6-clockwise",
        "play goes clockwise, skipping eliminated seats",
        (
            EK + "test_turns.py::test_1_3_6_clockwise__draw_ends_the_turn_and_passes_to_next_seat",
            EK + "test_turns.py::test_1_3_6_clockwise__play_order_skips_eliminated_seats",
        ),
    ),
    Rule(
        "1.3.check",
        "pile sizes and cards out of the game per edition and player count; no Kitten dealt",
        (
            EK + "test_setup.py::test_1_1__setup_counts_table",
            EK
            + "test_setup.py::test_1_2_spare_defuses__each_hand_starts_with_exactly_one_defuse_and_no_kitten",
        ),
    ),
    Rule(
        "1.4.turn",
        "play any number of cards, each fully resolved, then end the turn by drawing",
        (
            EK + "test_turns.py::test_1_4_turn__playing_a_card_does_not_end_the_turn",
            EK + "test_turns.py::test_1_3_6_clockwise__draw_ends_the_turn_and_passes_to_next_seat",
        ),
    ),
    Rule(
        "1.4.no-start-draw",
        "drawing at the end is the rule; no draw at the start of a turn",
        (EK + "test_setup.py::test_1_4_no_start_draw__no_draw_at_start_of_turn",),
    ),
    Rule(
        "1.4.owed",
        "turns_owed and under_attack; a draw or a Skip ends one; then next seat owes 1",
        (
            EK + "test_turns.py::test_1_4_owed__drawing_while_owing_two_leaves_one",
            EK + "test_turns.py::test_1_4_owed__skip_ends_one_turn_without_drawing",
            EK + "test_turns.py::test_1_3_6_clockwise__draw_ends_the_turn_and_passes_to_next_seat",
        ),
    ),
    Rule(
        "1.4.under-attack",
        "an Attack sets under_attack on the seat it targets (both editions)",
        (EK + "test_turns.py::test_1_4_under_attack__attack_sets_under_attack_in_both_editions",),
    ),
    Rule(
        "1.4.noped-turns",
        "a Noped Attack or Skip changes nothing about turns",
        (
            EK + "test_turns.py::test_1_4_noped_turns__noped_attack_changes_nothing_about_turns",
            EK + "test_turns.py::test_1_4_noped_turns__noped_skip_still_requires_draw",
        ),
    ),
    Rule(
        "1.4.who-plays",
        "only the active seat plays, with no window open and no decision pending (leaving is always accepted)",
        (
            EK
            + "test_refusals.py::test_1_4_who_plays__command_from_a_seat_that_is_not_the_active_one_is_refused",
            EK + "test_refusals.py::test_1_4_who_plays__decision_pending_blocks_the_turn",
            EK + "test_nope.py::test_1_4_who_plays__only_nope_and_pass_while_a_window_is_open",
            EK + "test_end.py::test_1_4_who_plays__leave_while_placing_a_kitten_removes_that_kitten",
        ),
    ),
    Rule(
        "1.4.attack-2022",
        "2022: next seat owes 2 + the attacker's remaining turns if under attack",
        (
            EK + "test_turns.py::test_1_4_attack_2022__attack_ends_turn_without_drawing_and_next_owes_two",
            EK + "test_turns.py::test_1_2_attack_victim__attack_on_first_of_two_attacked_turns_gives_four",
            EK
            + "test_turns.py::test_1_2_decision_seed_004__attack_on_second_of_two_attacked_turns_gives_three",
            EK + "test_turns.py::test_1_4_attack_2022__attack_after_drawing_first_of_two_gives_three",
        ),
    ),
    Rule(
        "1.4.attack-classic",
        "classic: always 2",
        (EK + "test_turns.py::test_1_2_attack_victim__classic_edition_attack_on_attack_gives_two",),
    ),
    Rule(
        "1.4.skip",
        "Skip while owing 2 leaves 1; two Skips clear both",
        (
            EK + "test_turns.py::test_1_4_skip__skip_while_owing_two_leaves_one",
            EK + "test_turns.py::test_1_4_skip__two_skips_clear_both_owed_turns",
        ),
    ),
    Rule(
        "1.4.defuse-turn",
        "a Defuse ends only the turn whose draw it answered",
        (EK + "test_turns.py::test_1_4_defuse_turn__defuse_ends_only_the_turn_it_answered",),
    ),
    Rule(
        "1.4.eliminated-owed",
        "a player eliminated owing turns loses them; the next seat owes 1",
        (EK + "test_turns.py::test_1_4_eliminated_owed__eliminated_while_owing_turns_next_seat_owes_one",),
    ),
    Rule(
        "1.4.hand-size",
        "no hand size limit; an empty hand plays on and draws",
        (
            EK + "test_turns.py::test_1_4_hand_size__empty_hand_plays_on_and_draws",
            EK + "test_turns.py::test_1_4_hand_size__hand_size_has_no_maximum",
        ),
    ),
    Rule(
        "1.4.no-recycle",
        "the discard pile is never recycled",
        (EK + "test_turns.py::test_1_4_no_recycle__discard_pile_is_never_recycled",),
    ),
    Rule(
        "1.5.revealed",
        "a drawn Exploding Kitten is revealed at once (public event)",
        (EK + "test_kittens.py::test_1_5_revealed__drawn_kitten_is_revealed_publicly",),
    ),
    Rule(
        "1.5.defuse",
        "with a Defuse: the seat chooses the position 0..len; Defuse discarded; no shuffle",
        (
            EK + "test_kittens.py::test_1_5_defuse__defuse_at_position_zero_puts_kitten_on_top",
            EK + "test_kittens.py::test_1_5_defuse__defuse_at_position_len_puts_kitten_at_bottom",
            EK + "test_kittens.py::test_1_5_defuse__defuse_in_the_middle_keeps_the_order_without_shuffling",
            EK + "test_kittens.py::test_1_5_defuse__defuse_spends_the_defuse_to_the_discard_pile",
            EK + "test_kittens.py::test_1_5_defuse__defuse_out_of_range_is_refused",
        ),
    ),
    Rule(
        "1.5.secret-position",
        "the Kitten's new position is secret (that seat and moderators only)",
        (EK + "test_kittens.py::test_1_5_secret_position__defuse_position_is_seen_by_the_defuser_only",),
    ),
    Rule(
        "1.5.explode",
        "no Defuse: eliminated, hand face up to the discard, the Kitten leaves the game",
        (
            EK
            + "test_kittens.py::test_1_5_explode__player_without_defuse_is_eliminated_hand_to_discard_kitten_leaves_game",
        ),
    ),
    Rule(
        "1.5.dead-defuse",
        "a dead player's discarded Defuse can be taken by five different",
        (
            EK
            + "test_kittens.py::test_1_5_explode__player_without_defuse_is_eliminated_hand_to_discard_kitten_leaves_game",
            EK
            + "test_actions.py::test_1_5_dead_defuse__five_different_classic_takes_a_card_from_the_discard_pile",
        ),
    ),
    Rule(
        "1.5.no-nope",
        "neither a Defuse nor an Exploding Kitten can be Noped",
        (EK + "test_kittens.py::test_1_5_no_nope__defuse_and_kitten_cannot_be_noped",),
    ),
    Rule(
        "1.5.always-defuse",
        "decision: a seat holding a Defuse always defuses; only the position is chosen",
        (
            EK
            + "test_kittens.py::test_1_5_always_defuse__holding_a_defuse_always_defuses_only_the_position_is_chosen",
        ),
    ),
    Rule(
        "1.5.timeout",
        "decision: on timeout the Kitten goes to a uniformly random position",
        (EK + "test_kittens.py::test_1_5_timeout__defuse_timeout_puts_kitten_at_random_position",),
    ),
    Rule(
        "1.6.window",
        "every action card and combo opens a reaction window before it resolves",
        (EK + "test_nope.py::test_1_6_window__played_action_opens_a_window_until_the_deadline",),
    ),
    Rule(
        "1.6.combo-no-effect",
        "combos ignore the cards' own effects",
        (
            EK
            + "test_turns.py::test_1_6_combo_no_effect__combo_ignores_card_effects_three_attacks_give_no_turns",
        ),
    ),
    Rule(
        "1.6.combo-shapes",
        "2 or 3 of one title, or 5 different (classic); anything else refused",
        (
            EK + "test_actions.py::test_1_6_combo_shapes__four_of_a_kind_is_refused",
            EK + "test_actions.py::test_1_6_combo_shapes__pair_of_different_cats_is_refused",
            EK + "test_refusals.py::test_1_6_combo_shapes__wrong_combo_shapes_are_refused",
        ),
    ),
    Rule(
        "1.6.any-title",
        "with special combos any title counts (Defuse, Nope); without, pairs of one Cat kind",
        (
            EK + "test_actions.py::test_1_6_any_title__special_combos_allow_a_pair_of_any_title",
            EK
            + "test_actions.py::test_1_2_special_combos__without_special_combos_only_cat_pairs_are_allowed",
        ),
    ),
    Rule(
        "1.6.favor",
        "Favor: a living opponent; once resolved the target chooses the card",
        (
            EK + "test_actions.py::test_1_6_favor__favor_target_chooses_the_card",
            EK + "test_actions.py::test_1_6_favor__action_on_an_eliminated_target_is_refused",
        ),
    ),
    Rule(
        "1.6.pair",
        "pair: a uniformly random card from the target's hand, by the server's own RNG",
        (EK + "test_actions.py::test_1_6_pair__pair_steals_a_random_card_with_the_server_rng",),
    ),
    Rule(
        "1.6.triple",
        "triple: name any title but the Kitten; given if held, else nothing; three spent",
        (
            EK + "test_actions.py::test_1_6_triple__triple_takes_the_named_card_when_held",
            EK
            + "test_actions.py::test_1_6_triple__triple_named_card_not_held_takes_nothing_and_spends_the_three",
            EK + "test_actions.py::test_1_6_triple__triple_must_name_a_title_but_not_the_kitten",
        ),
    ),
    Rule(
        "1.6.five",
        "five different: take any card of the discard pile then (the five included, never a Kitten)",
        (
            EK
            + "test_actions.py::test_1_5_dead_defuse__five_different_classic_takes_a_card_from_the_discard_pile",
            EK + "test_actions.py::test_1_6_five__five_different_may_take_one_of_the_five",
            EK + "test_actions.py::test_1_6_five__five_different_never_takes_a_kitten",
        ),
    ),
    Rule(
        "1.6.lone-cat",
        "a single Cat card cannot be played (clear error)",
        (EK + "test_actions.py::test_1_6_lone_cat__single_cat_is_refused",),
    ),
    Rule(
        "1.6.no-cards-target",
        "decision: targeting an opponent with no cards is refused when played",
        (EK + "test_actions.py::test_1_6_no_cards_target__action_on_a_target_with_no_cards_is_refused",),
    ),
    Rule(
        "1.6.emptied-target",
        "decision: a target's hand emptied during the window: no effect",
        (
            EK
            + "test_actions.py::test_1_6_emptied_target__target_hand_emptied_during_the_window_resolves_with_no_effect",
            EK
            + "test_actions.py::test_1_6_emptied_target__pair_target_hand_emptied_during_the_window_resolves_with_no_effect",
        ),
    ),
    Rule(
        "1.7.chain",
        "a Nope cancels what it answers; the action resolves on an even chain",
        (
            EK + "test_nope.py::test_1_7_chain__nope_cancels_the_action",
            EK + "test_nope.py::test_1_7_chain__yup_restores_the_favor",
            EK + "test_nope.py::test_1_7_chain__three_nopes_cancel_the_action",
        ),
    ),
    Rule(
        "1.7.who-nopes",
        "any living holder, out of turn, on the chain's top; not on one's own card",
        (
            EK + "test_nope.py::test_1_7_who_nopes__nope_is_played_out_of_turn_by_any_living_player",
            EK + "test_nope.py::test_1_7_who_nopes__nobody_nopes_their_own_card",
            EK + "test_nope.py::test_1_7_who_nopes__the_actor_may_nope_a_nope_against_its_action",
            EK + "test_nope.py::test_1_7_who_nopes__eliminated_players_cannot_nope",
            EK + "test_nope.py::test_1_7_who_nopes__nope_without_a_nope_card_is_refused",
        ),
    ),
    Rule(
        "1.7.no-window",
        "a Nope with no window open or after the deadline is refused (the deadline decides)",
        (
            EK + "test_nope.py::test_1_7_no_window__nope_when_no_window_is_open_is_refused",
            EK
            + "test_nope.py::test_1_7_no_window__nope_after_the_deadline_is_refused_even_before_the_resolution_is_written",
        ),
    ),
    Rule(
        "1.7.close",
        "closes when all eligible seats passed or reaction_window elapsed; each Nope restarts it",
        (
            EK + "test_nope.py::test_1_7_close__window_closes_when_all_other_living_seats_passed",
            EK + "test_nope.py::test_1_6_window__played_action_opens_a_window_until_the_deadline",
            EK + "test_nope.py::test_1_7_close__each_nope_restarts_the_window_and_the_passes",
            EK + "test_nope.py::test_1_7_close__reaction_window_zero_resolves_at_once",
            EK + "test_nope.py::test_1_7_close__a_seat_that_passed_may_still_nope",
        ),
    ),
    Rule(
        "1.7.stale",
        "a Nope names the chain length; a grown chain refuses it and the card is not spent",
        (EK + "test_nope.py::test_1_7_stale__stale_nope_is_refused_and_the_card_is_not_spent",),
    ),
    Rule(
        "1.7.public-window",
        "the window names all eligible seats and the deadline; passes are not broadcast",
        (
            EK
            + "test_nope.py::test_1_7_public_window__eligible_seats_are_all_living_seats_but_the_top_card_player",
            EK + "test_nope.py::test_1_7_public_window__passes_are_not_broadcast",
            UNIT
            + "test_exploding_kittens_numbering.py::test_1_7_public_window__a_pass_changes_no_number_another_seat_or_a_spectator_can_read",
            LEAKS + "test_a_pass_changes_nothing_another_seat_or_a_spectator_can_read",
        ),
    ),
    Rule(
        "1.7.security",
        "the window never closes early because of what is in someone's hand",
        (EK + "test_nope.py::test_1_7_security__window_does_not_close_early_when_nobody_holds_nope",),
    ),
    Rule(
        "1.7.on-time",
        "the window closes on time even if no client sends anything",
        (
            EK + "test_nope.py::test_1_7_on_time__window_closes_on_time_without_any_client",
            EK + "test_nope.py::test_1_7_on_time__an_expired_window_is_closed_before_the_next_command",
            E2E + "test_api_play.py::test_nope_window_closes_on_time_without_any_request",
        ),
    ),
    Rule(
        "1.7.noped",
        "Noped cards stay discarded; a Noped action has no effect, private ones included",
        (
            EK + "test_nope.py::test_1_7_noped__noped_cards_stay_in_the_discard_pile",
            EK + "test_nope.py::test_1_7_chain__nope_cancels_the_action",
            EK + "test_nope.py::test_1_7_noped__noped_pair_takes_nothing",
            EK + "test_nope.py::test_1_7_noped__noped_shuffle_does_not_shuffle",
            EK + "test_nope.py::test_1_7_noped__noped_see_the_future_shows_nothing",
            EK + "test_turns.py::test_1_4_noped_turns__noped_skip_still_requires_draw",
        ),
    ),
    Rule(
        "1.8.last-wins",
        "the last living player wins at once, even with turns owed or a window open",
        (
            EK
            + "test_end.py::test_1_8_last_wins__the_last_living_player_wins_at_once_even_with_a_window_open",
            EK + "test_kittens.py::test_1_8_last_wins__last_explosion_leaves_the_winner",
        ),
    ),
    Rule(
        "1.8.leave",
        "leaving: eliminated as if exploded, hand to the discard pile",
        (
            EK + "test_end.py::test_1_8_leave__leave_discards_the_hand_and_removes_the_bottom_most_kitten",
            HTTP_RULES + "test_everything_is_shown_to_moderators_and_to_everyone_once_a_public_game_is_over",
        ),
    ),
    Rule(
        "1.8.leave-kitten",
        "the Kitten being placed leaves, else the bottom-most Kitten (not saying where)",
        (
            EK + "test_end.py::test_1_4_who_plays__leave_while_placing_a_kitten_removes_that_kitten",
            EK + "test_end.py::test_1_8_leave__leave_discards_the_hand_and_removes_the_bottom_most_kitten",
            EK
            + "test_facts.py::test_1_8_leave_kitten__when_a_seat_leaves_the_event_names_the_bottom_most_kitten",
            EK + "test_facts.py::test_1_8_leave_kitten__only_a_moderator_sees_where_the_leaving_kitten_was",
        ),
    ),
    Rule(
        "1.8.leave-turns",
        "owed turns are lost; if it was their turn the next living seat owes 1",
        (
            EK
            + "test_end.py::test_1_8_leave_turns__leave_on_own_turn_loses_owed_turns_and_next_seat_owes_one",
        ),
    ),
    Rule(
        "1.8.leave-chain",
        "their chain is discarded unresolved; their decisions cancelled; no more targeting",
        (
            EK + "test_end.py::test_1_8_leave_chain__leave_discards_an_unresolved_chain_of_the_leaver",
            EK + "test_end.py::test_1_8_leave_chain__leave_of_the_favor_giver_resolves_with_nothing",
            EK
            + "test_end.py::test_1_8_leave_chain__leave_of_the_target_during_the_window_resolves_with_no_effect",
            EK + "test_end.py::test_1_8_leave_chain__nothing_can_target_a_seat_that_left",
        ),
    ),
    Rule(
        "1.9.public",
        "public: seats, alive, turn, owed, hand sizes, pile size, discard, plays, targets, who saw the future or defused (not what or where), that a card moved, a triple's title, five different's pick",
        (
            EK + "test_information.py::test_1_9_public__seat_view_holds_its_hand_and_the_public_state",
            EK + "test_information.py::test_1_9_public__spectator_view_has_no_hands_and_no_pile_order",
            EK + "test_actions.py::test_1_9_public__see_the_future_shows_the_top_three_to_the_seer_only",
            EK + "test_kittens.py::test_1_5_secret_position__defuse_position_is_seen_by_the_defuser_only",
            EK + "test_actions.py::test_1_9_public__favor_card_is_visible_to_giver_and_receiver_only",
            EK
            + "test_actions.py::test_1_5_dead_defuse__five_different_classic_takes_a_card_from_the_discard_pile",
            EK + "test_actions.py::test_1_6_triple__triple_takes_the_named_card_when_held",
        ),
    ),
    Rule(
        "1.9.one-seat",
        "known to one seat: its hand, its See the Future, where it put a defused Kitten",
        (
            EK
            + "test_information.py::test_1_9_one_seat__setup_event_shows_a_seat_only_its_own_hand_and_the_pile_size",
            EK + "test_information.py::test_1_9_one_seat__drawn_card_is_seen_by_the_drawer_only",
            EK + "test_actions.py::test_1_9_public__see_the_future_shows_the_top_three_to_the_seer_only",
            EK + "test_kittens.py::test_1_5_secret_position__defuse_position_is_seen_by_the_defuser_only",
        ),
    ),
    Rule(
        "1.9.knowledge-now",
        "a view shows that knowledge as it stands now: draws, Shuffles, others' Defuses",
        (
            EK + "test_knowledge.py::test_1_9_knowledge_now__each_draw_moves_every_known_card_one_place_up",
            EK + "test_knowledge.py::test_1_9_knowledge_now__a_shuffle_voids_every_seats_knowledge",
            EK + "test_knowledge.py::test_1_9_knowledge_now__another_seats_defuse_voids_the_knowledge",
            EK
            + "test_knowledge.py::test_1_9_knowledge_now__the_defusing_seat_keeps_an_exact_updated_picture",
        ),
    ),
    Rule(
        "1.9.two-seats",
        "known to exactly two seats: the card given by Favor or taken by a pair",
        (
            EK + "test_actions.py::test_1_9_public__favor_card_is_visible_to_giver_and_receiver_only",
            EK + "test_actions.py::test_1_9_two_seats__pair_stolen_card_is_visible_to_thief_and_victim_only",
        ),
    ),
    Rule(
        "1.9.hidden",
        "hidden from all players: the pile order, the RNG's seed and state",
        (
            EK + "test_information.py::test_1_9_public__spectator_view_has_no_hands_and_no_pile_order",
            UNIT
            + "test_exploding_kittens_seed_hidden.py::test_1_9_hidden__the_rng_seed_is_hidden_from_every_player_and_spectator",
            E2E
            + "test_api_play.py::test_no_response_of_a_seat_contains_another_seats_cards_or_the_pile_order",
        ),
    ),
    Rule(
        "1.9.no-positions",
        "Shuffle, Defuse (timeout included) and leave events carry no position or order",
        (
            EK + "test_actions.py::test_1_9_no_positions__shuffle_shuffles_commits_and_does_not_end_the_turn",
            EK + "test_kittens.py::test_1_5_secret_position__defuse_position_is_seen_by_the_defuser_only",
            EK + "test_end.py::test_1_8_leave__leave_discards_the_hand_and_removes_the_bottom_most_kitten",
        ),
    ),
    Rule(
        "1.9.moderators",
        "moderators see everything; everyone does once a public game is over",
        (
            EK + "test_information.py::test_1_9_moderators__moderator_view_has_everything",
            E2E + "test_audit.py::test_audit_needs_a_moderator_until_a_public_game_is_over",
            HTTP_RULES + "test_everything_is_shown_to_moderators_and_to_everyone_once_a_public_game_is_over",
        ),
    ),
)

# The shared lines (sections 0 and 3) this game's tests prove too, by id.
EVERY_GAME: dict[str, tuple[str, ...]] = {
    "0.enforced": (
        EK + "test_properties.py::test_0_enforced__legal_commands_are_exactly_the_accepted_ones",
        EK + "test_properties.py::test_0_enforced__garbage_commands_only_raise_rule_violations",
    ),
    "3.not-waited": (
        EK
        + "test_refusals.py::test_1_4_who_plays__command_from_a_seat_that_is_not_the_active_one_is_refused",
        EK + "test_nope.py::test_1_7_who_nopes__nope_is_played_out_of_turn_by_any_living_player",
    ),
    "3.refused-nothing": (
        EK + "test_properties.py::test_0_enforced__legal_commands_are_exactly_the_accepted_ones",
    ),
    "3.timeout-option": (
        EK + "test_refusals.py::test_3_timeout_option__decision_timeout_is_off_by_default",
        EK + "test_refusals.py::test_3_timeout_option__idle_active_seat_draws_on_timeout_by_the_server",
    ),
    "3.timeout-ek": (
        EK + "test_refusals.py::test_3_timeout_option__idle_active_seat_draws_on_timeout_by_the_server",
        EK + "test_kittens.py::test_1_5_timeout__defuse_timeout_puts_kitten_at_random_position",
        EK + "test_actions.py::test_3_timeout_ek__favor_timeout_gives_a_random_card",
        EK
        + "test_actions.py::test_3_timeout_ek__five_different_timeout_takes_a_uniformly_random_eligible_discard",
    ),
    "3.creation": (EK + "test_setup.py::test_3_creation__bad_options_are_refused",),
    "3.no-inference-numbers": (
        UNIT
        + "test_exploding_kittens_numbering.py::test_1_7_public_window__a_pass_changes_no_number_another_seat_or_a_spectator_can_read",
        UNIT
        + "test_exploding_kittens_numbering.py::test_3_no_inference_numbers__every_viewers_numbers_run_without_gaps_after_passes",
    ),
    "3.no-inference-errors": (
        EK + "test_actions.py::test_1_6_no_cards_target__action_on_a_target_with_no_cards_is_refused",
    ),
    "3.no-inference-offers": (
        EK + "test_nope.py::test_1_7_security__window_does_not_close_early_when_nobody_holds_nope",
    ),
    "3.no-trace": (
        UNIT + "test_exploding_kittens_numbering.py::test_3_no_trace__numbering_resumes_from_any_prefix",
    ),
}
