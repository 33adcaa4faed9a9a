# ruff: noqa: E501  (a table of long test names)
"""A Risk Cat's lines of RULES.md (section 2) with the tests proving each, and its tests of the
lines every game shares: read by tests/rules_coverage.py through the registry (tests/declared.py)."""

from __future__ import annotations

from tests.rules_coverage import Rule

ARC = "domain/a_risk_cat/tests/"
SECTIONS = ("2.1", "2.2", "2.3", "2.4", "2.5", "2.6")

RULES: tuple[Rule, ...] = (
    Rule(
        "2.1.tokens",
        "11 paintings, painting n has n tokens (66); values are the numbers",
        (ARC + "test_arc_setup.py::test_2_1_tokens__sixty_six_tokens_painting_n_has_n_tokens",),
    ),
    Rule(
        "2.1.black-cat",
        "one black-cat token per painting; for painting 2 the Banker",
        (
            ARC
            + "test_arc_setup.py::test_2_1_black_cat__banker_is_painting_two_black_cat_and_cheater_is_distinct",
            ARC + "test_arc_scoring.py::test_2_1_black_cat__banker_breaks_painting_two_ties",
        ),
    ),
    Rule(
        "2.1.identical",
        "decision: tokens of one painting are identical (Banker = Cheater) for duplicates and steals",
        (
            ARC + "test_arc_turn.py::test_2_1_identical__banker_and_cheater_are_identical",
            ARC + "test_arc_powers.py::test_2_1_identical__cheater_drawn_as_a_duplicate_of_the_banker_busts",
        ),
    ),
    Rule(
        "2.2.removal",
        "3 or 4 players: painting 10 and its tokens removed",
        (
            ARC + "test_arc_setup.py::test_2_2_removal__three_players_remove_painting_ten",
            ARC + "test_arc_setup.py::test_2_2_removal__five_or_more_players_keep_painting_ten",
        ),
    ),
    Rule(
        "2.2.first-seat",
        "the first seat is random or given; play is clockwise",
        (
            ARC + "test_arc_setup.py::test_2_2_first_seat__first_seat_is_random_unless_given",
            ARC + "test_arc_turn.py::test_2_2_first_seat__play_passes_clockwise",
        ),
    ),
    Rule(
        "2.2.stacks",
        "all tokens in the bag; every stack starts empty, listed bottom to top",
        (
            ARC
            + "test_arc_setup.py::test_2_2_stacks__start_puts_every_token_in_a_shuffled_bag_with_a_commitment",
            ARC + "test_arc_setup.py::test_2_2_stacks__initial_state_holds_options_and_nothing_drawn",
        ),
    ),
    Rule(
        "2.3.draw",
        "at least one draw; after each, draw again or stop; a uniformly random token, public",
        (
            ARC + "test_arc_turn.py::test_2_3_draw__turn_must_start_with_a_draw",
            ARC
            + "test_arc_turn.py::test_2_3_draw__draw_takes_the_bag_top_and_places_it_in_front_of_the_seat",
            ARC + "test_arc_turn.py::test_2_3_draw__after_a_draw_the_seat_may_draw_again_or_stop",
            ARC
            + "test_arc_setup.py::test_2_2_stacks__start_puts_every_token_in_a_shuffled_bag_with_a_commitment",
        ),
    ),
    Rule(
        "2.3.1.bust",
        "a token of a painting drawn earlier this turn busts",
        (
            ARC + "test_arc_turn.py::test_2_3_1_bust__duplicate_busts_and_returns_stolen_tokens_too",
            ARC + "test_arc_turn.py::test_2_3_1_bust__only_drawn_tokens_count_for_the_bust_check",
        ),
    ),
    Rule(
        "2.3.1.no-bust-by-joining",
        "decision: steals, Cat swaps and the ladies never bust; a swapped Cat still counts",
        (
            ARC + "test_arc_turn.py::test_2_3_1_no_bust_by_joining__stolen_token_never_causes_a_bust",
            ARC + "test_arc_turn.py::test_2_3_1_no_bust_by_joining__swapped_away_cat_still_counts_as_drawn",
            ARC
            + "test_arc_powers.py::test_2_3_1_no_bust_by_joining__ladies_taken_tokens_trigger_powers_and_return_on_bust",
        ),
    ),
    Rule(
        "2.3.1.bust-effect",
        "a bust returns every token obtained this turn, ends the turn; robbed stacks stay robbed",
        (
            ARC + "test_arc_turn.py::test_2_3_1_bust__duplicate_busts_and_returns_stolen_tokens_too",
            ARC + "test_arc_turn.py::test_2_3_1_bust_effect__bust_reshuffles_the_bag_with_a_new_commitment",
        ),
    ),
    Rule(
        "2.3.2.steal",
        "per matching stack: take its whole top run, or nothing",
        (
            ARC + "test_arc_turn.py::test_2_3_2_steal__steal_takes_the_whole_identical_run_below_the_top",
            ARC + "test_arc_turn.py::test_2_3_2_steal__steal_is_per_stack_all_or_nothing",
            ARC + "test_arc_turn.py::test_2_3_2_steal__steal_can_be_declined",
            ARC + "test_arc_turn.py::test_2_3_2_steal__only_matching_stacks_can_be_stolen_from",
            ARC + "test_arc_turn.py::test_2_3_2_steal__no_steal_decision_when_no_top_matches",
        ),
    ),
    Rule(
        "2.3.2.cat",
        "Musician Cat: take every Cat run, or swap for another stack's top, or keep it",
        (
            ARC + "test_arc_turn.py::test_2_3_2_cat__musician_cat_takes_every_cat_run",
            ARC + "test_arc_turn.py::test_2_3_2_cat__musician_cat_swaps_with_a_top_token",
            ARC + "test_arc_turn.py::test_2_3_2_cat__musician_cat_can_be_kept",
            ARC + "test_arc_turn.py::test_2_3_2_cat__non_cat_draw_does_not_steal_cat_tops",
            ARC + "test_arc_powers.py::test_2_3_2_cat__angel_on_top_blocks_cat_swap",
            ARC + "test_arc_turn.py::test_2_3_2_cat__musician_cat_with_nothing_to_do_is_kept_without_asking",
        ),
    ),
    Rule(
        "2.3.2.only-draws",
        "only draws open steals; taken tokens join this turn's tokens",
        (ARC + "test_arc_turn.py::test_2_3_2_only_draws__only_draws_open_steals",),
    ),
    Rule(
        "2.3.3.powers",
        "full mode: powers of the tokens that joined, in the order they joined",
        (
            ARC + "test_arc_powers.py::test_2_3_3_powers__powers_resolve_in_the_order_their_tokens_joined",
            ARC + "test_arc_powers.py::test_2_3_3_powers__powers_resolve_after_the_steal_choice",
        ),
    ),
    Rule(
        "2.3.4.empty-bag",
        "draw again or stop; with the bag empty only stop remains",
        (ARC + "test_arc_turn.py::test_2_3_4_empty_bag__empty_bag_leaves_only_stop",),
    ),
    Rule(
        "2.3.stop",
        "stop: this turn's tokens in the seat's order go on top; older tokens untouched",
        (
            ARC + "test_arc_turn.py::test_2_3_stop__stop_puts_tokens_in_chosen_order_on_top",
            ARC + "test_arc_turn.py::test_2_3_stop__stop_order_must_be_a_permutation_of_this_turns_tokens",
        ),
    ),
    Rule(
        "2.4.end",
        "the game ends when a turn ends with the bag empty; a bust or a Banker refill lets play go on",
        (
            ARC + "test_arc_turn.py::test_2_4_end__game_ends_when_a_turn_ends_with_the_bag_empty",
            ARC + "test_arc_turn.py::test_2_4_end__bust_refills_the_bag_so_play_goes_on",
            ARC + "test_arc_powers.py::test_2_4_end__banker_refilling_an_empty_bag_lets_play_go_on",
        ),
    ),
    Rule(
        "2.4.paintings",
        "most tokens wins a painting; a tie goes to the black-cat holder, tied or not",
        (
            ARC + "test_arc_scoring.py::test_2_4_paintings__most_tokens_wins_the_painting",
            ARC + "test_arc_scoring.py::test_2_4_paintings__tie_goes_to_black_cat_holder_outside_the_tie",
            ARC + "test_arc_scoring.py::test_2_4_paintings__tie_goes_to_black_cat_holder_inside_the_tie",
        ),
    ),
    Rule(
        "2.4.score",
        "1 a token, 2 a Twins token, plus paintings won; equal highest scores share the win",
        (
            ARC + "test_arc_scoring.py::test_2_4_score__twins_score_two_points_each",
            ARC + "test_arc_scoring.py::test_2_4_score__equal_highest_scores_share_the_win",
            ARC
            + "test_arc_scoring.py::test_2_4_score__outcome_is_none_while_running_and_the_scores_at_the_end",
        ),
    ),
    Rule(
        "2.4.check",
        "totals 74 + 66 = 140 with all paintings; 64 + 56 = 120 without painting 10",
        (
            ARC + "test_arc_scoring.py::test_2_4_check__scoring_totals_140_with_all_paintings",
            ARC + "test_arc_scoring.py::test_2_4_check__scoring_totals_120_without_painting_ten",
        ),
    ),
    Rule(
        "2.5.trigger",
        "decision: a power triggers once, when its token joins (drawn, stolen, swapped in, taken)",
        (
            ARC + "test_arc_powers.py::test_2_5_trigger__stolen_banker_triggers_too",
            ARC + "test_arc_powers.py::test_2_5_trigger__swapped_in_token_triggers_its_power",
            ARC
            + "test_arc_powers.py::test_2_3_1_no_bust_by_joining__ladies_taken_tokens_trigger_powers_and_return_on_bust",
        ),
    ),
    Rule(
        "2.5.no-undo",
        "decision: a later bust undoes nothing a power did",
        (ARC + "test_arc_powers.py::test_2_5_no_undo__a_power_is_not_undone_by_a_later_bust",),
    ),
    Rule(
        "2.5.dealt-no-trigger",
        "decision: tokens dealt by Robin Tell never trigger",
        (ARC + "test_arc_powers.py::test_2_5_dealt_no_trigger__robin_tell_dealt_tokens_never_trigger",),
    ),
    Rule(
        "2.5.angel",
        "an Angel on top: immune to every power and the Cat swap; still stolen from, still receives",
        (
            ARC + "test_arc_powers.py::test_2_5_angel__banker_is_blocked_by_an_angel_on_its_own_stack",
            ARC + "test_arc_powers.py::test_2_5_angel__robin_tell_skips_angel_topped_and_empty_stacks",
            ARC + "test_arc_powers.py::test_2_3_2_cat__angel_on_top_blocks_cat_swap",
            ARC + "test_arc_powers.py::test_2_5_angel__ladies_skip_angel_topped_and_own_stacks",
            ARC + "test_arc_powers.py::test_2_5_angel__angel_topped_stack_can_still_be_stolen_from",
            ARC + "test_arc_powers.py::test_2_5_angel__robin_tell_deals_onto_an_angel_topped_stack",
        ),
    ),
    Rule(
        "2.5.robin-tell",
        "Robin Tell: the largest eligible stack; ties picked by the active seat; none: no effect",
        (
            ARC + "test_arc_powers.py::test_2_5_robin_tell__robin_tell_robs_the_largest_stack_and_deals_it",
            ARC + "test_arc_powers.py::test_2_5_robin_tell__robin_tell_can_rob_the_active_seats_own_stack",
            ARC
            + "test_arc_powers.py::test_2_5_robin_tell__robin_tell_lets_the_seat_choose_among_equal_stacks",
            ARC + "test_arc_powers.py::test_2_5_robin_tell__robin_tell_target_refuses_an_angel_topped_stack",
            ARC + "test_arc_powers.py::test_2_5_robin_tell__robin_tell_without_a_target_has_no_effect",
        ),
    ),
    Rule(
        "2.5.banker",
        "Banker: the top ceil(n/2) of the own stack back into the bag, unrevealed; turn tokens untouched",
        (
            ARC + "test_arc_powers.py::test_2_5_banker__banker_returns_top_half_rounded_up",
            ARC + "test_arc_powers.py::test_2_5_banker__banker_ignores_this_turns_tokens",
            ARC + "test_arc_views.py::test_2_5_banker__banker_redacted_shows_only_count_and_new_top",
        ),
    ),
    Rule(
        "2.5.cheater",
        "decision: the Cheater, drawn or stolen, spares the first later duplicate; a second busts",
        (
            ARC + "test_arc_powers.py::test_2_5_cheater__cheater_forgives_exactly_one_duplicate",
            ARC + "test_arc_powers.py::test_2_5_cheater__stolen_cheater_also_forgives",
            ARC + "test_arc_powers.py::test_2_5_cheater__banker_spared_by_the_cheater_still_triggers",
        ),
    ),
    Rule(
        "2.5.ladies",
        "the three ladies: once a turn, take 0-4 tops of other non-Angel stacks, one at a time",
        (
            ARC + "test_arc_powers.py::test_2_5_ladies__three_ladies_take_up_to_four_tops",
            ARC + "test_arc_powers.py::test_2_5_ladies__three_ladies_may_take_nothing",
            ARC + "test_arc_powers.py::test_2_5_ladies__ladies_trigger_once_per_turn",
            ARC + "test_arc_powers.py::test_2_5_ladies__ladies_fire_for_a_swapped_in_third_lady",
            ARC
            + "test_arc_powers.py::test_2_3_1_no_bust_by_joining__ladies_taken_tokens_trigger_powers_and_return_on_bust",
        ),
    ),
    Rule(
        "2.5.no-power",
        "Astronaut, Mason, Firefighter: no power; Twins: 2 points each",
        (
            ARC + "test_arc_powers.py::test_2_5_no_power__astronaut_mason_and_firefighter_have_no_power",
            ARC + "test_arc_scoring.py::test_2_4_score__twins_score_two_points_each",
        ),
    ),
    Rule(
        "2.5.base",
        "base mode: no token has a power; the Angel protects nothing",
        (
            ARC + "test_arc_powers.py::test_2_5_base__base_mode_tokens_have_no_powers",
            ARC + "test_arc_powers.py::test_2_5_base__angel_protects_nothing_in_base_mode",
        ),
    ),
    Rule(
        "2.6.public",
        "public: tokens drawn or taken, every top and size, bag size, paintings removed, scores",
        (
            ARC
            + "test_arc_views.py::test_2_6_public__seat_and_spectator_views_show_tops_and_sizes_never_contents",
            ARC + "test_arc_views.py::test_2_6_public__view_before_the_start_shows_empty_stacks_and_no_turn",
        ),
    ),
    Rule(
        "2.6.stop-event",
        "a stop's public event shows only the new top and the count",
        (ARC + "test_arc_views.py::test_2_6_stop_event__stop_redacted_shows_only_new_top_and_count",),
    ),
    Rule(
        "2.6.hidden",
        "hidden: the bag's order and each stack below its top (moderators only)",
        (
            ARC + "test_arc_views.py::test_2_6_hidden__setup_redacted_hides_bag_and_salt",
            ARC + "test_arc_views.py::test_2_6_hidden__robin_tell_redacted_hides_the_pile_below_its_top",
            ARC + "test_arc_views.py::test_2_6_hidden__moderator_sees_everything",
        ),
    ),
    Rule(
        "2.6.no-hints",
        "views give tops and sizes, never contents nor hints beyond the legal options",
        (
            ARC
            + "test_arc_views.py::test_2_6_public__seat_and_spectator_views_show_tops_and_sizes_never_contents",
            ARC + "test_arc_views.py::test_2_6_no_hints__views_show_drawn_paintings_not_drawn_token_ids",
            ARC
            + "test_arc_views.py::test_2_6_no_hints__seat_view_lists_legal_commands_only_for_the_waited_seat",
        ),
    ),
)

# The shared lines (sections 0 and 3) this game's tests prove too, by id.
EVERY_GAME: dict[str, tuple[str, ...]] = {
    "0.enforced": (
        ARC + "test_arc_properties.py::test_0_enforced__every_command_legal_commands_offers_is_accepted",
        ARC + "test_arc_properties.py::test_0_enforced__garbage_commands_raise_only_rule_violations",
    ),
    "3.not-waited": (ARC + "test_arc_refusals.py::test_3_not_waited__not_your_turn",),
    "3.refused-nothing": (
        ARC + "test_arc_refusals.py::test_3_refused_nothing__refused_command_changes_nothing",
    ),
    "3.timeout-option": (
        ARC + "test_arc_timeouts.py::test_3_timeout_option__no_deadline_without_a_decision_timeout",
        ARC + "test_arc_timeouts.py::test_3_timeout_option__every_pending_decision_gets_a_deadline",
    ),
    "3.timeout-arc": (
        ARC + "test_arc_timeouts.py::test_3_timeout_arc__timeout_draws_at_the_start_of_a_turn",
        ARC + "test_arc_timeouts.py::test_3_timeout_arc__timeout_declines_a_steal",
        ARC + "test_arc_timeouts.py::test_3_timeout_arc__timeout_keeps_a_cat",
        ARC
        + "test_arc_timeouts.py::test_3_timeout_arc__timeout_robin_tell_deals_everything_back_to_the_robbed_seat",
        ARC + "test_arc_timeouts.py::test_3_timeout_arc__timeout_ladies_take_nothing",
        ARC + "test_arc_timeouts.py::test_3_timeout_arc__timeout_stops_with_tokens_in_the_order_obtained",
    ),
    "3.timeout-robin-tie": (
        ARC
        + "test_arc_concede.py::test_3_timeout_robin_tie__on_timeout_the_first_tied_stack_in_seat_order_after_the_chooser",
        ARC
        + "test_arc_timeouts.py::test_3_timeout_robin_tie__timeout_robin_tell_target_is_the_first_candidate_from_the_active_seat",
    ),
    "3.concede-arc": (
        ARC
        + "test_arc_concede.py::test_3_concede_arc__active_seat_conceding_before_drawing_is_skipped_without_a_draw",
        ARC + "test_arc_concede.py::test_3_concede_arc__a_conceded_seats_turns_are_skipped",
        ARC + "test_arc_concede.py::test_3_concede_arc__a_conceded_seat_can_neither_concede_again_nor_play",
    ),
    "3.concede-arc-decisions": (
        ARC
        + "test_arc_concede.py::test_3_concede_arc_decisions__active_seat_conceding_with_tokens_stops_in_the_order_obtained",
        ARC
        + "test_arc_concede.py::test_3_concede_arc_decisions__active_seat_conceding_on_a_steal_declines_it_by_the_server",
        ARC
        + "test_arc_concede.py::test_3_concede_arc_decisions__chooser_conceding_a_robin_tell_tie_robs_the_first_tied_after_it",
    ),
    "3.concede-arc-stack": (
        ARC
        + "test_arc_concede.py::test_3_concede_arc_stack__a_steal_target_conceding_leaves_the_decision_and_its_deadline",
        ARC
        + "test_arc_concede.py::test_3_concede_arc_stack__a_conceded_seats_stack_is_still_reachable_by_powers",
    ),
    "3.concede-arc-win": (
        ARC + "test_arc_concede.py::test_3_concede_arc_win__a_conceded_seat_is_scored_but_cannot_win",
        ARC
        + "test_arc_properties.py::test_3_concede_arc_win__random_games_with_concessions_end_scored_and_no_conceded_seat_wins",
    ),
    "3.concede-arc-end": (
        ARC
        + "test_arc_concede.py::test_3_concede_arc_end__fewer_than_two_seats_standing_end_the_game_at_once_scored",
        ARC
        + "test_arc_concede.py::test_3_concede_arc_end__the_other_conceding_before_the_last_seat_draws_ends_the_game",
    ),
    "3.creation": (ARC + "test_arc_setup.py::test_3_creation__bad_options_are_refused",),
    "3.no-inference-errors": (
        ARC + "test_arc_refusals.py::test_3_no_inference_errors__messages_do_not_reveal_the_bag_or_stacks",
    ),
    "3.no-inference-offers": (
        ARC + "test_arc_views.py::test_2_6_no_hints__seat_view_lists_legal_commands_only_for_the_waited_seat",
    ),
}
