#!/usr/bin/env python3
"""Drives transferd's dashboard in a real browser: headless Chromium (Debian's chromium and chromium-driver) through
Selenium (pip), as an operator would, mostly with the keyboard:

 1. signs in with API_KEY;
 2. enqueues a download of ENQUEUE through the session page's form;
 3. watches its progress bar move and reach completed without a reload (the page's EventSource);
 4. cancels the running task 1;
 5. replays the dead-lettered delivery of the session HOOKED;
 6. visits the task, background tasks, fetches, staged files and API keys pages (issuing a key), and a refused form's page;
 7. signs out, and checks that the data pages then refuse.

It saves a screenshot of each page to SCREENSHOTS (phone- and desktop-sized) and prints one JSON object of what it
saw, for the Swift test to judge.

    dashboard_browser.py http://127.0.0.1:PORT API_KEY SCREENSHOTS '{"session": …, "enqueue": …, "hooked": …}'
"""
import json
import os
import sys
import time

import headless_chromium

try:
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    sys.exit("selenium is needed: pip install selenium (and apt-get install chromium chromium-driver)")

base, key, screenshots, scenario = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
os.makedirs(screenshots, exist_ok=True)
driver = headless_chromium.start()
wait = WebDriverWait(driver, 60, poll_frequency=0.05)
seen = {}


def shoot(name):
    """Saves the page at desktop size and at phone size."""
    for label, (width, height) in {"desktop": (1280, 900), "phone": (390, 844)}.items():
        driver.set_window_size(width, height)
        driver.save_screenshot(os.path.join(screenshots, f"{name}-{label}.png"))
    driver.set_window_size(1280, 900)


def row(task):
    return driver.find_element(By.CSS_SELECTOR, f'tr[data-task="{task}"]')


def status(task):
    return row(task).find_element(By.CSS_SELECTOR, '[data-field="status"]').text


def replaced(element):
    """Whether `element`'s page has gone: Selenium's `staleness_of`, which also takes Chromium's word for it when the
    node is asked about halfway through the navigation ("does not belong to the document", seen on a loaded
    machine) rather than after it."""
    def check(_):
        try:
            element.is_enabled()
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as error:
            if "does not belong to the document" in str(error):
                return True
            raise
    return check


def submit_and_wait(element):
    """Sends a form with the keyboard (Enter on a field, Space on a button) and waits for the next page."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.send_keys(Keys.ENTER if element.tag_name == "input" else Keys.SPACE)
    wait.until(replaced(page))


try:
    session_page = f"{base}/ui/sessions/{scenario['session']}"

    # 1. sign in, with the keyboard as a person would
    driver.get(base + "/ui/sessions")
    seen["redirectedToSignIn"] = driver.current_url.endswith("/ui/sign-in")
    shoot("sign-in")
    field = driver.find_element(By.ID, "key")
    seen["keyFieldFocused"] = driver.switch_to.active_element == field
    field.send_keys(key + "\n")
    wait.until(expected_conditions.url_to_be(base + "/ui/sessions"))
    seen["sessions"] = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "tbody th[scope=row]")]
    seen["keyInPage"] = key in driver.page_source
    seen["keyInStorage"] = driver.execute_script(
        "return JSON.stringify(localStorage).includes(arguments[0]) || JSON.stringify(sessionStorage).includes(arguments[0])", key
    )
    seen["cookieVisibleToScripts"] = "transferd_dashboard" in driver.execute_script("return document.cookie")
    shoot("sessions")
    driver.find_element(By.LINK_TEXT, scenario["session"]).click()
    wait.until(expected_conditions.url_to_be(session_page))
    seen["sessionTitle"] = driver.find_element(By.TAG_NAME, "h1").text

    # 2. enqueue a download through the form
    url_field = driver.find_element(By.ID, "url")
    url_field.send_keys(scenario["enqueue"])
    submit_and_wait(url_field)
    seen["afterEnqueue"] = driver.current_url
    wait.until(lambda _: row(2))
    driver.execute_script("window.stillThePage = true")

    # 3. its bar moves and reaches completed, live: the page is never loaded again
    fractions, rates, etas, shot = set(), set(), set(), False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and status(2) != "completed":
        cells = row(2)
        fractions.add(round(float(cells.find_element(By.TAG_NAME, "progress").get_attribute("value") or 0), 3))
        rates.add(cells.find_element(By.CSS_SELECTOR, '[data-field="rate"]').text)
        etas.add(cells.find_element(By.CSS_SELECTOR, '[data-field="eta"]').text)
        if not shot and 0.3 < max(fractions) < 0.8:
            shoot("session-live")
            shot = True
        time.sleep(0.1)
    seen["progressSeen"] = sorted(fractions)
    seen["ratesSeen"] = sorted(rate for rate in rates if rate)
    seen["etasSeen"] = sorted(eta for eta in etas if eta)
    seen["finalStatus"] = status(2)
    seen["finalProgress"] = float(row(2).find_element(By.TAG_NAME, "progress").get_attribute("value"))
    seen["reloaded"] = not driver.execute_script("return window.stillThePage === true")
    seen["liveStatus"] = driver.find_element(By.CSS_SELECTOR, "[data-live-status]").text

    # 4. cancel the running task 1
    seen["task1Before"] = status(1)
    submit_and_wait(row(1).find_element(By.CSS_SELECTOR, "form.cancel button"))
    wait.until(lambda _: "cancel" in status(1))
    seen["task1After"] = status(1)
    shoot("session")

    # a refused form shows the API problem's detail
    url_field = driver.find_element(By.ID, "url")
    url_field.send_keys("ftp://example.com/file")
    submit_and_wait(url_field)
    seen["refusedProblem"] = driver.find_element(By.CSS_SELECTOR, ".problem[role=alert]").text
    shoot("refused")

    # the task page
    driver.get(session_page)
    row(2).find_element(By.CSS_SELECTOR, "th a").click()
    wait.until(expected_conditions.url_to_be(session_page + "/tasks/2"))
    seen["taskTitle"] = driver.find_element(By.TAG_NAME, "h1").text
    seen["taskTimeline"] = [item.text for item in driver.find_elements(By.CSS_SELECTOR, ".timeline li")]
    seen["contentLink"] = driver.find_element(By.PARTIAL_LINK_TEXT, "Download the content").get_attribute("href")
    shoot("task")

    # background tasks: backgroundTimeRemaining counts down
    driver.find_element(By.LINK_TEXT, "Background tasks").click()
    wait.until(expected_conditions.url_to_be(session_page + "/background-tasks"))
    # read anew each time: an event (task 1's completion) may have the page replace the table's rows meanwhile
    first = driver.find_element(By.CSS_SELECTOR, "[role=timer]").text
    time.sleep(2.2)
    seen["countdown"] = [first, driver.find_element(By.CSS_SELECTOR, "[role=timer]").text]
    shoot("background-tasks")

    # fetches: a schedule's last result and next run, in another session's tab
    driver.get(f"{base}/ui/sessions/{scenario['fetching']}/fetches")
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "tr[data-fetch] .result").text == "newData")
    seen["fetchResult"] = driver.find_element(By.CSS_SELECTOR, "tr[data-fetch] .result").text
    seen["fetchNextRun"] = driver.find_element(By.CSS_SELECTOR, "tr[data-fetch] td:last-child time").get_attribute("datetime")
    shoot("fetches")
    # ... and a schedule added through the tab's form, as an operator types it
    fetch_url = driver.find_element(By.ID, "url")
    fetch_url.send_keys(scenario["schedule"])
    interval = driver.find_element(By.ID, "interval")
    interval.clear()
    interval.send_keys("3600")
    submit_and_wait(fetch_url)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr[data-fetch]")) == 2)
    seen["fetchesAfterForm"] = len(driver.find_elements(By.CSS_SELECTOR, "tr[data-fetch]"))

    # 5. replay the dead-lettered delivery
    driver.get(f"{base}/ui/sessions/{scenario['hooked']}/deliveries?status=failed")
    seen["failedDeliveries"] = len(driver.find_elements(By.CSS_SELECTOR, "tr[data-delivery]"))
    shoot("deliveries")
    submit_and_wait(driver.find_element(By.CSS_SELECTOR, "tr[data-delivery] form button"))
    seen["afterReplay"] = driver.current_url
    seen["failedAfterReplay"] = len(driver.find_elements(By.CSS_SELECTOR, "tr[data-delivery]"))

    # staged files and API keys
    driver.find_element(By.LINK_TEXT, "Staged files").click()
    wait.until(expected_conditions.url_to_be(base + "/ui/files"))
    seen["files"] = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "tbody th[scope=row]")]
    shoot("files")
    driver.find_element(By.LINK_TEXT, "API keys").click()
    wait.until(expected_conditions.url_to_be(base + "/ui/keys"))
    seen["keys"] = len(driver.find_elements(By.CSS_SELECTOR, "tr[data-key]"))
    shoot("keys")
    name = driver.find_element(By.ID, "name")
    name.send_keys("dashboard test")
    submit_and_wait(name)
    seen["issuedKey"] = driver.find_element(By.ID, "token").get_attribute("value")
    seen["keysAfterIssue"] = len(driver.find_elements(By.CSS_SELECTOR, "tr[data-key]"))
    shoot("key-issued")

    # 6. sign out, then the data pages refuse
    driver.find_element(By.CSS_SELECTOR, "form.sign-out button").click()
    wait.until(expected_conditions.url_to_be(base + "/ui/sign-in"))
    driver.get(base + "/ui/sessions")
    seen["afterSignOut"] = driver.current_url
    driver.get(base + "/v1/sessions")
    seen["apiAfterSignOut"] = json.loads(driver.find_element(By.TAG_NAME, "body").text).get("status")
finally:
    driver.quit()
print(json.dumps(seen), flush=True)
